import { availableParallelism } from 'node:os';
import { EngramError, isEngramError } from '../../model/errors.js';
import type { EmbedOptions, Embedder } from '../embedder.js';
import { readOnnxModelFolder, type OnnxModelFolder, type Pooling } from './onnx-model-folder.js';
import { OnnxSessionPool, type TensorData } from './onnx-session-pool.js';
import { runInBatches } from './plan-batches.js';
import { l2NormalizeInPlace, poolTokens } from './pool-tokens.js';
import { SentenceTokenizer } from './sentence-tokenizer.js';

/** Options of {@link createOnnxEmbedder}. Unset ones come from the model folder's config files. */
export interface OnnxEmbedderOptions {
  /** The model folder (an ONNX export with tokenizer.json and its configs), or its .onnx file. */
  path: string;
  /** The .onnx file inside the folder. @default 'model.onnx', else 'onnx/model.onnx' */
  file?: string | undefined;
  /** Model id stored with every vector. @default `onnx:<folder name>` */
  id?: string | undefined;
  /** Expected vector dimension. @default 1_Pooling/config.json's, else config.json's hidden_size; else learned from the first output */
  dim?: number | undefined;
  /** Pooling of token vectors. @default 1_Pooling/config.json's mode; else 'cls' for bge models, 'mean' for others */
  pooling?: Pooling | undefined;
  /** Scale vectors to unit length. @default true when modules.json lists Normalize, or has no modules.json */
  normalize?: boolean | undefined;
  /** Put before every query (`role: 'query'`). @default config_sentence_transformers.json's query prompt; else 'query: ' (e5), 'search_query: ' (nomic), bge's instruction; else '' */
  queryPrefix?: string | undefined;
  /** Put before every document (`role: 'document'`). @default the declared document prompt; else 'passage: ' (e5), 'search_document: ' (nomic); else '' */
  documentPrefix?: string | undefined;
  /** Most tokens per text. @default sentence_bert_config.json's max_seq_length, else the tokenizer's / model's limit, else 512 */
  maxTokens?: number | undefined;
  /** Worker threads, each with its own copy of the model. @default 1 */
  workers?: number | undefined;
  /** onnxruntime threads per worker. @default min(4, os.availableParallelism()) */
  threads?: number | undefined;
  /** Largest batch × padded length of one forward pass. @default 2048 */
  maxBatchTokens?: number | undefined;
}

const OUTPUT_PREFERENCE = ['sentence_embedding', 'last_hidden_state', 'token_embeddings'];
const KNOWN_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids', 'position_ids']);

interface Loaded {
  pool: OnnxSessionPool;
  tokenizer: SentenceTokenizer;
  output: string;
}

async function load(folder: OnnxModelFolder, options: OnnxEmbedderOptions, maxTokens: number): Promise<Loaded> {
  const tokenizer = new SentenceTokenizer(folder.tokenizerJson, folder.tokenizerConfig, maxTokens);
  const pool = await OnnxSessionPool.open(folder.modelFile, {
    workers: options.workers ?? 1,
    threads: options.threads ?? Math.min(4, availableParallelism()),
    label: folder.modelFile,
  });
  const unknown = pool.inputNames.filter((n) => !KNOWN_INPUTS.has(n));
  const output = OUTPUT_PREFERENCE.find((o) => pool.outputNames.includes(o)) ?? pool.outputNames[0];
  const problem = !pool.inputNames.includes('input_ids')
    ? 'it has no input_ids input'
    : unknown.length > 0
      ? `it needs inputs Engram does not know how to fill: ${unknown.join(', ')}`
      : output === undefined
        ? 'it has no output'
        : folder.extraModules.length > 0 && output !== 'sentence_embedding'
          ? `modules.json adds ${folder.extraModules.join(', ')} after pooling, but the ONNX graph has no sentence_embedding output`
          : undefined;
  if (problem !== undefined || output === undefined) {
    await pool.close();
    throw new EngramError(
      'CONFIG_ERROR',
      `The ONNX model ${folder.modelFile} is not a sentence encoder Engram can run: ${problem}`,
      {
        details: { inputs: pool.inputNames, outputs: pool.outputNames },
      },
    );
  }
  return { pool, tokenizer, output };
}

/** The feeds of one padded batch (right padding). */
function feeds(
  batch: number[][],
  inputs: readonly string[],
  padId: number,
): { feeds: Record<string, TensorData>; len: number } {
  const b = batch.length;
  const len = Math.max(1, ...batch.map((t) => t.length));
  const ids = new BigInt64Array(b * len).fill(BigInt(padId));
  const mask = new BigInt64Array(b * len);
  batch.forEach((tokens, r) => {
    tokens.forEach((id, j) => {
      ids[r * len + j] = BigInt(id);
      mask[r * len + j] = 1n;
    });
  });
  const dims = [b, len];
  const out: Record<string, TensorData> = { input_ids: { type: 'int64', data: ids, dims } };
  if (inputs.includes('attention_mask')) out['attention_mask'] = { type: 'int64', data: mask, dims };
  if (inputs.includes('token_type_ids'))
    out['token_type_ids'] = { type: 'int64', data: new BigInt64Array(b * len), dims };
  if (inputs.includes('position_ids')) {
    const pos = new BigInt64Array(b * len);
    for (let i = 0; i < pos.length; i++) pos[i] = BigInt(i % len);
    out['position_ids'] = { type: 'int64', data: pos, dims };
  }
  return { feeds: out, len };
}

/** What a forward pass needs to know; `dim` is learned from the first output when no config declares it. */
interface Shape {
  id: string;
  dim: number;
  pooling: Pooling;
  normalize: boolean;
}

/** One padded batch through the model, pooled and (when configured) normalised. */
async function forward(l: Loaded, batch: number[][], shape: Shape): Promise<Float32Array[]> {
  const { feeds: input, len } = feeds(batch, l.pool.inputNames, l.tokenizer.padId);
  const out = (await l.pool.run(input, [l.output], batch.length * len))[l.output];
  const pooled = out?.dims.length === 2;
  const width = out?.dims.at(-1) ?? 0;
  if (!out || out.type !== 'float32' || out.dims[0] !== batch.length || (!pooled && out.dims[1] !== len)) {
    throw new EngramError('EMBEDDER_ERROR', `The ONNX model ${shape.id} returned an output of an unexpected shape`, {
      details: { output: l.output, dims: out?.dims },
    });
  }
  if (shape.dim === 0) shape.dim = width;
  if (width !== shape.dim) {
    throw new EngramError(
      'EMBEDDER_ERROR',
      `The ONNX model ${shape.id} outputs ${width} dimensions, its config declares ${shape.dim}`,
      { details: { output: width, declared: shape.dim } },
    );
  }
  const vectors = pooled
    ? batch.map((_, r) => out.data.slice(r * width, (r + 1) * width))
    : poolTokens(
        out.data,
        batch.map((t) => t.length),
        len,
        width,
        shape.pooling,
      );
  return shape.normalize ? vectors.map(l2NormalizeInPlace) : vectors;
}

/**
 * A sentence-embedding model from disk, run on onnxruntime-node in worker threads: an ONNX
 * export (MiniLM, bge, e5, gte, nomic…) with its `tokenizer.json` (WordPiece, Unigram or BPE,
 * through `@huggingface/tokenizers`), the pooling and normalisation its sentence-transformers
 * config declares, and query / document prefixes where the model wants them. Nothing is
 * downloaded. Reads the folder's configs now (CONFIG_ERROR for a bad path or a missing
 * tokenizer.json); the model loads on the first `embed` (EMBEDDER_ERROR if it cannot).
 */
export async function createOnnxEmbedder(options: OnnxEmbedderOptions): Promise<Embedder> {
  if (typeof options?.path !== 'string' || options.path.trim() === '') {
    throw new EngramError('CONFIG_ERROR', 'createOnnxEmbedder needs the path of a model folder');
  }
  const folder = await readOnnxModelFolder(options.path, options.file);
  const maxTokens = options.maxTokens ?? folder.maxTokens;
  const queryPrefix = options.queryPrefix ?? folder.queryPrefix;
  const documentPrefix = options.documentPrefix ?? folder.documentPrefix;
  const maxBatchTokens = options.maxBatchTokens ?? 2048;
  const shape: Shape = {
    id: options.id ?? `onnx:${folder.name}`,
    dim: options.dim ?? folder.dim,
    pooling: options.pooling ?? folder.pooling,
    normalize: options.normalize ?? folder.normalize,
  };
  let loaded: Promise<Loaded> | undefined;
  let closed = false;

  return {
    model: shape.id,
    get dim() {
      return shape.dim;
    },
    asymmetric: queryPrefix !== documentPrefix,
    async embed(texts: string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      if (closed) throw new EngramError('EMBEDDER_ERROR', `The embedder ${shape.id} is closed`);
      embedOptions?.signal?.throwIfAborted();
      if (texts.length === 0) return [];
      if (texts.some((t) => typeof t !== 'string')) {
        throw new EngramError('INVALID_TEXT', 'Every text to embed must be a string');
      }
      loaded ??= load(folder, options, maxTokens).catch((cause: unknown) => {
        loaded = undefined;
        throw isEngramError(cause)
          ? cause
          : new EngramError('EMBEDDER_ERROR', `The ONNX model ${folder.modelFile} could not be loaded`, { cause });
      });
      const l = await loaded;
      const prefix = embedOptions?.role === 'query' ? queryPrefix : documentPrefix;
      const tokens = texts.map((t) => l.tokenizer.encode(prefix + t));
      return runInBatches(
        tokens.map((t) => t.length),
        maxBatchTokens,
        (indices) =>
          forward(
            l,
            indices.map((i) => tokens[i] ?? []),
            shape,
          ),
        embedOptions?.signal,
      );
    },
    async close(): Promise<void> {
      closed = true;
      const l = loaded;
      loaded = undefined;
      if (l) await (await l.catch(() => undefined))?.pool.close();
    },
  };
}
