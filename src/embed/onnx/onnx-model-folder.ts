import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { EngramError } from '../../model/errors.js';

/** How token vectors become one sentence vector. */
export type Pooling = 'mean' | 'cls' | 'max' | 'last';

/** What a sentence-embedding model folder declares (or what is detected from its name). */
export interface OnnxModelFolder {
  /** The folder (holds tokenizer.json and the config files). */
  dir: string;
  /** The .onnx file. */
  modelFile: string;
  /** The model's name: the folder name (or its parent's, for a file in `onnx/`). */
  name: string;
  tokenizerJson: object;
  tokenizerConfig: object;
  /** Declared output dimension, 0 when no config says it. */
  dim: number;
  pooling: Pooling;
  normalize: boolean;
  queryPrefix: string;
  documentPrefix: string;
  /** Most tokens per text (special tokens included). */
  maxTokens: number;
  /** sentence-transformers modules after pooling that the ONNX graph must already contain (e.g. Dense). */
  extraModules: string[];
}

const MODEL_FILES = ['model.onnx', 'onnx/model.onnx'];

async function kind(p: string): Promise<'file' | 'dir' | undefined> {
  try {
    const s = await stat(p);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

async function readJson(file: string, required: true): Promise<Record<string, unknown>>;
async function readJson(file: string, required: false): Promise<Record<string, unknown> | undefined>;
async function readJson(file: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    if (!required) return undefined;
    throw new EngramError('CONFIG_ERROR', `The ONNX model folder has no ${path.basename(file)} (${file})`, {
      cause,
      details: { file },
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new EngramError('CONFIG_ERROR', `${file} is not valid JSON`, { cause, details: { file } });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EngramError('CONFIG_ERROR', `${file} is not a JSON object`, { details: { file } });
  }
  return parsed as Record<string, unknown>;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The .onnx file and the folder beside it, from a folder or a file path. */
async function locate(input: string, file: string | undefined): Promise<{ dir: string; modelFile: string }> {
  const resolved = path.resolve(input);
  const what = await kind(resolved);
  if (what === undefined) {
    throw new EngramError('CONFIG_ERROR', `No ONNX model at ${resolved}: no such file or folder`, {
      details: { path: resolved },
    });
  }
  if (what === 'file') {
    const parent = path.dirname(resolved);
    const dir = path.basename(parent) === 'onnx' ? path.dirname(parent) : parent;
    return { dir, modelFile: resolved };
  }
  const candidates = file ? [file] : MODEL_FILES;
  for (const c of candidates) {
    const p = path.resolve(resolved, c);
    if ((await kind(p)) === 'file') return { dir: resolved, modelFile: p };
  }
  throw new EngramError('CONFIG_ERROR', `No ONNX model in ${resolved} (looked for ${candidates.join(', ')})`, {
    details: { path: resolved, looked: candidates },
  });
}

/** Pooling and normalisation declared by sentence-transformers' modules.json and its Pooling config. */
async function sentenceTransformers(
  dir: string,
  modules: unknown,
): Promise<{ pooling?: Pooling; normalize?: boolean; dim?: number; extra: string[] }> {
  const list = Array.isArray(modules) ? (modules as Array<Record<string, unknown>>) : [];
  const types = list.map((m) => str(m['type']) ?? '');
  const poolingModule = list.find((m) => str(m['type'])?.endsWith('Pooling'));
  const config = await readJson(path.join(dir, str(poolingModule?.['path']) ?? '1_Pooling', 'config.json'), false);
  const out: { pooling?: Pooling; normalize?: boolean; dim?: number; extra: string[] } = {
    extra: types.filter((t) => !/(Transformer|Pooling|Normalize)$/.test(t)),
  };
  if (list.length > 0) out.normalize = types.some((t) => t.endsWith('Normalize'));
  if (config) {
    if (config['pooling_mode_cls_token'] === true) out.pooling = 'cls';
    else if (config['pooling_mode_mean_tokens'] === true) out.pooling = 'mean';
    else if (config['pooling_mode_max_tokens'] === true) out.pooling = 'max';
    else if (config['pooling_mode_lasttoken'] === true) out.pooling = 'last';
    const dim = num(config['word_embedding_dimension']);
    if (dim !== undefined) out.dim = dim;
  }
  return out;
}

/** modules.json is a JSON array, which readJson refuses: read it on its own. */
async function readModules(dir: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path.join(dir, 'modules.json'), 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Prefixes known for model families whose configs do not declare them. */
function knownPrefixes(name: string): { query: string; document: string } | undefined {
  const n = name.toLowerCase();
  if (/(^|[^a-z])e5([^a-z]|$)/.test(n)) return { query: 'query: ', document: 'passage: ' };
  if (n.includes('nomic-embed')) return { query: 'search_query: ', document: 'search_document: ' };
  if (/bge-.*zh/.test(n)) return { query: '为这个句子生成表示以用于检索相关文章：', document: '' };
  if (/bge-.*en/.test(n)) return { query: 'Represent this sentence for searching relevant passages: ', document: '' };
  return undefined;
}

/** Query and document prompts from config_sentence_transformers.json. */
function declaredPrefixes(
  config: Record<string, unknown> | undefined,
): { query: string; document: string } | undefined {
  const prompts = config?.['prompts'];
  if (typeof prompts !== 'object' || prompts === null) return undefined;
  const p = prompts as Record<string, unknown>;
  const query = str(p['query']) ?? str(p['search_query']);
  const document = str(p['document']) ?? str(p['passage']) ?? str(p['search_document']) ?? str(p['corpus']);
  if (query === undefined && document === undefined) return undefined;
  return { query: query ?? '', document: document ?? '' };
}

/**
 * Reads a sentence-embedding model folder (a Hugging Face / sentence-transformers ONNX export):
 * the .onnx file, tokenizer.json (required), tokenizer_config.json, config.json, modules.json,
 * 1_Pooling/config.json, config_sentence_transformers.json and sentence_bert_config.json.
 * Bad paths and unreadable configs reject with CONFIG_ERROR.
 */
export async function readOnnxModelFolder(input: string, file?: string): Promise<OnnxModelFolder> {
  const { dir, modelFile } = await locate(input, file);
  const [tokenizerJson, tokenizerConfig, config, stConfig, bertConfig, modules] = await Promise.all([
    readJson(path.join(dir, 'tokenizer.json'), true),
    readJson(path.join(dir, 'tokenizer_config.json'), false),
    readJson(path.join(dir, 'config.json'), false),
    readJson(path.join(dir, 'config_sentence_transformers.json'), false),
    readJson(path.join(dir, 'sentence_bert_config.json'), false),
    readModules(dir),
  ]);
  const st = await sentenceTransformers(dir, modules);
  const name = path.basename(dir);
  const family = `${name} ${str(config?.['_name_or_path']) ?? ''}`;
  const prefixes = declaredPrefixes(stConfig) ?? knownPrefixes(family) ?? { query: '', document: '' };
  const isBge = /bge-/i.test(family);
  const maxTokens =
    num(bertConfig?.['max_seq_length']) ??
    [num(tokenizerConfig?.['model_max_length']), num(config?.['max_position_embeddings'])]
      .filter((v): v is number => v !== undefined && v <= 100_000)
      .reduce<number | undefined>((a, b) => (a === undefined ? b : Math.min(a, b)), undefined) ??
    512;
  return {
    dir,
    modelFile,
    name,
    tokenizerJson,
    tokenizerConfig: tokenizerConfig ?? {},
    dim: st.dim ?? num(config?.['hidden_size']) ?? num(config?.['d_model']) ?? num(config?.['dim']) ?? 0,
    pooling: st.pooling ?? (isBge ? 'cls' : 'mean'),
    normalize: st.normalize ?? true,
    queryPrefix: prefixes.query,
    documentPrefix: prefixes.document,
    maxTokens,
    extraModules: st.extra,
  };
}
