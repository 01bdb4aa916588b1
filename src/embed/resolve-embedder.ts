import { EngramError } from '../model/errors.js';
import type { Embedder } from './embedder.js';
import type { LocalEmbedderOptions } from './local/local-embedder.js';
import type { OnnxEmbedderOptions } from './onnx/onnx-embedder.js';
import type { Pooling } from './onnx/onnx-model-folder.js';
import type { OpenAICompatibleEmbedderOptions } from './openai-compatible-embedder.js';

/** Options of {@link resolveEmbedder}; each provider reads the ones it needs. */
export interface ResolveEmbedderOptions {
  /** Server root for HTTP providers. @default openai: `OPENAI_BASE_URL` or https://api.openai.com/v1; ollama: `OLLAMA_HOST`/v1 or http://127.0.0.1:11434/v1; http: `ENGRAM_EMBEDDER_BASE_URL` (required) */
  baseURL?: string | undefined;
  /** API key for HTTP providers. @default openai: `OPENAI_API_KEY` (required); http: `ENGRAM_EMBEDDER_API_KEY`; ollama: none */
  apiKey?: string | undefined;
  /** Declared vector dimension for HTTP providers. @default known for OpenAI's models, else learned from the first response */
  dim?: number | undefined;
  /** Further options of the HTTP embedder (batch size, timeout, retries, fetch…). @default {} */
  http?: Partial<OpenAICompatibleEmbedderOptions> | undefined;
  /** Options of the local embedder (`use-lite`). @default {} */
  local?: LocalEmbedderOptions | undefined;
  /**
   * Options of `onnx:<path>` embedders (the path comes from the name).
   * @default prefixes, pooling and normalisation from `ENGRAM_ONNX_QUERY_PREFIX`, `ENGRAM_ONNX_DOCUMENT_PREFIX`,
   * `ENGRAM_ONNX_POOLING` (mean, cls, max, last), `ENGRAM_ONNX_NORMALIZE` (true, false), `ENGRAM_ONNX_WORKERS` and
   * `ENGRAM_ONNX_THREADS` when set, else the model folder's configs and createOnnxEmbedder's defaults
   */
  onnx?: Omit<Partial<OnnxEmbedderOptions>, 'path'> | undefined;
  /** Environment to read defaults from. @default process.env */
  env?: Record<string, string | undefined> | undefined;
}

/** Makes an embedder for a model name after the provider prefix (empty for `use-lite`). */
export type EmbedderFactory = (model: string, options: ResolveEmbedderOptions) => Promise<Embedder>;

interface Provider {
  /** How the name looks, for error messages. */
  pattern: string;
  /** True when the provider needs a model after the colon. */
  needsModel: boolean;
  factory: EmbedderFactory;
}

const POOLINGS: readonly Pooling[] = ['mean', 'cls', 'max', 'last'];

/** `onnx:<path>` settings from the environment (for the CLI); explicit options win. */
function onnxFromEnv(env: Record<string, string | undefined>): Partial<OnnxEmbedderOptions> {
  const out: Partial<OnnxEmbedderOptions> = {};
  const pooling = env['ENGRAM_ONNX_POOLING'];
  if (pooling !== undefined && pooling !== '') {
    if (!(POOLINGS as readonly string[]).includes(pooling)) {
      throw new EngramError(
        'CONFIG_ERROR',
        `ENGRAM_ONNX_POOLING must be one of ${POOLINGS.join(', ')}, got '${pooling}'`,
      );
    }
    out.pooling = pooling as Pooling;
  }
  const normalize = env['ENGRAM_ONNX_NORMALIZE'];
  if (normalize !== undefined && normalize !== '') {
    if (normalize !== 'true' && normalize !== 'false') {
      throw new EngramError('CONFIG_ERROR', `ENGRAM_ONNX_NORMALIZE must be true or false, got '${normalize}'`);
    }
    out.normalize = normalize === 'true';
  }
  for (const [key, field] of [
    ['ENGRAM_ONNX_WORKERS', 'workers'],
    ['ENGRAM_ONNX_THREADS', 'threads'],
  ] as const) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    if (!/^[1-9][0-9]*$/.test(value))
      throw new EngramError('CONFIG_ERROR', `${key} must be a positive integer, got '${value}'`);
    out[field] = Number(value);
  }
  if (env['ENGRAM_ONNX_QUERY_PREFIX'] !== undefined) out.queryPrefix = env['ENGRAM_ONNX_QUERY_PREFIX'];
  if (env['ENGRAM_ONNX_DOCUMENT_PREFIX'] !== undefined) out.documentPrefix = env['ENGRAM_ONNX_DOCUMENT_PREFIX'];
  return out;
}

/** Known output sizes of OpenAI's embedding models. */
const OPENAI_DIMS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

async function httpEmbedder(id: string, model: string, base: OpenAICompatibleEmbedderOptions): Promise<Embedder> {
  const { createOpenAICompatibleEmbedder } = await import('./openai-compatible-embedder.js');
  return createOpenAICompatibleEmbedder({ ...base, id, model });
}

const providers = new Map<string, Provider>([
  [
    'use-lite',
    {
      pattern: 'use-lite',
      needsModel: false,
      factory: async (_model, options) => {
        const { createLocalEmbedder } = await import('./local/local-embedder.js');
        return createLocalEmbedder(options.local);
      },
    },
  ],
  [
    'onnx',
    {
      pattern: 'onnx:<path>',
      needsModel: true,
      factory: async (modelPath, options) => {
        const { createOnnxEmbedder } = await import('./onnx/onnx-embedder.js');
        const env = options.env ?? process.env;
        return createOnnxEmbedder({ ...onnxFromEnv(env), ...options.onnx, path: modelPath });
      },
    },
  ],
  [
    'openai',
    {
      pattern: 'openai:<model>',
      needsModel: true,
      factory: (model, options) => {
        const env = options.env ?? process.env;
        const apiKey = options.apiKey ?? options.http?.apiKey ?? env['OPENAI_API_KEY'];
        if (!apiKey) {
          throw new EngramError('CONFIG_ERROR', `Embedder openai:${model} needs an API key (apiKey or OPENAI_API_KEY)`);
        }
        return httpEmbedder(`openai:${model}`, model, {
          ...options.http,
          baseURL: options.baseURL ?? options.http?.baseURL ?? env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1',
          model,
          apiKey,
          dim: options.dim ?? options.http?.dim ?? options.http?.dimensions ?? OPENAI_DIMS[model],
        });
      },
    },
  ],
  [
    'ollama',
    {
      pattern: 'ollama:<model>',
      needsModel: true,
      factory: (model, options) => {
        const env = options.env ?? process.env;
        const host = env['OLLAMA_HOST'];
        const fromHost = host
          ? `${/^https?:\/\//.test(host) ? host : `http://${host}`}`.replace(/\/+$/, '') + '/v1'
          : undefined;
        return httpEmbedder(`ollama:${model}`, model, {
          ...options.http,
          baseURL: options.baseURL ?? options.http?.baseURL ?? fromHost ?? 'http://127.0.0.1:11434/v1',
          model,
          apiKey: options.apiKey ?? options.http?.apiKey,
          dim: options.dim ?? options.http?.dim,
        });
      },
    },
  ],
  [
    'http',
    {
      pattern: 'http:<model>',
      needsModel: true,
      factory: (model, options) => {
        const env = options.env ?? process.env;
        const baseURL = options.baseURL ?? options.http?.baseURL ?? env['ENGRAM_EMBEDDER_BASE_URL'];
        if (!baseURL) {
          throw new EngramError(
            'CONFIG_ERROR',
            `Embedder http:${model} needs a server address (baseURL or ENGRAM_EMBEDDER_BASE_URL)`,
          );
        }
        return httpEmbedder(`http:${model}`, model, {
          ...options.http,
          baseURL,
          model,
          apiKey: options.apiKey ?? options.http?.apiKey ?? env['ENGRAM_EMBEDDER_API_KEY'],
          dim: options.dim ?? options.http?.dim,
        });
      },
    },
  ],
]);

/** The embedder names {@link resolveEmbedder} accepts, e.g. `['use-lite', 'openai:<model>', …]`. */
export function availableEmbedders(): string[] {
  return [...providers.values()].map((p) => p.pattern);
}

/**
 * Adds (or replaces) a provider, so that `'<prefix>:<model>'` resolves through `factory`.
 * The factory should import its backend lazily.
 */
export function registerEmbedderProvider(prefix: string, factory: EmbedderFactory): void {
  if (!/^[a-z][a-z0-9-]*$/.test(prefix)) {
    throw new EngramError('CONFIG_ERROR', `Invalid embedder provider prefix '${prefix}'`);
  }
  providers.set(prefix, { pattern: `${prefix}:<model>`, needsModel: true, factory });
}

/**
 * Turns a name into an embedder: `'use-lite'` (offline default), `'onnx:<path>'` (a
 * sentence-embedding model folder on disk, see {@link createOnnxEmbedder}), `'openai:<model>'`,
 * `'ollama:<model>'`, `'http:<model>'` (any OpenAI-compatible server), or a registered
 * provider. Backends are imported only when chosen. Unknown names reject with
 * EngramError('CONFIG_ERROR') listing what is available.
 */
export async function resolveEmbedder(name: string, options: ResolveEmbedderOptions = {}): Promise<Embedder> {
  const trimmed = name.trim();
  const colon = trimmed.indexOf(':');
  const prefix = colon < 0 ? trimmed : trimmed.slice(0, colon);
  const model = colon < 0 ? '' : trimmed.slice(colon + 1).trim();
  const provider = providers.get(prefix);
  const valid = provider !== undefined && (provider.needsModel ? model.length > 0 : colon < 0);
  if (!provider || !valid) {
    const available = availableEmbedders();
    throw new EngramError('CONFIG_ERROR', `Unknown embedder '${name}'. Available: ${available.join(', ')}`, {
      details: { name, available },
    });
  }
  return provider.factory(model, options);
}
