import { availableParallelism } from 'node:os';
import { EngramError } from '../../model/errors.js';
import { OnnxSessionPool, type TensorData } from '../onnx/onnx-session-pool.js';
import { runInBatches } from '../onnx/plan-batches.js';
import { buildUseLiteOnnx, USE_LITE_ONNX_IO, type UseLiteGraphOptions } from './use-lite-graph.js';
import type { UseLiteWeights } from './use-lite-weights.js';

/** Tokens beyond this position are dropped, as in the reference graph (ClipToMaxLength). */
export const USE_LITE_MAX_TOKENS = 128;
/** Output dimension of USE lite. */
export const USE_LITE_DIM = 512;
const EMBED_DIM = 256;

export interface UseLiteOnnxOptions {
  /** onnxruntime intra-op threads per worker (threads working on one forward pass). @default 1 */
  threads?: number | undefined;
  /** Worker threads, each running forward passes with its own session. @default min(4, os.availableParallelism()) */
  parallelRuns?: number | undefined;
  /** Upper bound on batch × padded length per forward pass (memory bound). @default 1024 */
  maxBatchTokens?: number | undefined;
  /** 8-bit feed-forward weights (see UseLiteGraphOptions). @default undefined (float32) */
  int8Weights?: UseLiteGraphOptions['int8Weights'];
}

/**
 * The USE-lite forward pass on onnxruntime's native CPU kernels, in worker threads. The ONNX
 * graph is built in memory from the TF.js weights at load time ({@link buildUseLiteOnnx});
 * nothing is downloaded. Texts are sorted by length and packed into batches so padding stays
 * small; the batches spread over the workers and results come back in input order.
 */
export class UseLiteOnnxModel {
  private constructor(
    private readonly pool: OnnxSessionPool,
    private readonly weights: UseLiteWeights,
    private readonly timing: Float32Array,
    private readonly maxBatchTokens: number,
  ) {}

  static async load(weights: UseLiteWeights, options: UseLiteOnnxOptions = {}): Promise<UseLiteOnnxModel> {
    const pool = await OnnxSessionPool.open(buildUseLiteOnnx(weights, { int8Weights: options.int8Weights }), {
      workers: options.parallelRuns ?? Math.min(4, availableParallelism()),
      threads: options.threads ?? 1,
      label: 'use-lite',
    });
    return new UseLiteOnnxModel(pool, weights, timingTable(weights.invTimescales), options.maxBatchTokens ?? 1024);
  }

  /** Embeds token id lists; one l2-normalized 512-d vector per list, in order. */
  embedTokens(tokenLists: number[][], signal?: AbortSignal): Promise<Float32Array[]> {
    const lengths = tokenLists.map((t) => Math.min(t.length, USE_LITE_MAX_TOKENS));
    return runInBatches(
      lengths,
      this.maxBatchTokens,
      (indices) => this.forward(indices.map((i) => tokenLists[i] ?? [])),
      signal,
    );
  }

  /** One padded batch: embedding lookup and position signal here, the transformer in a worker. */
  private async forward(batch: number[][]): Promise<Float32Array[]> {
    const b = batch.length;
    const len = Math.max(1, ...batch.map((t) => Math.min(t.length, USE_LITE_MAX_TOKENS)));
    const x = new Float32Array(b * len * EMBED_DIM);
    const mask = new Float32Array(b * len);
    const bias = new Float32Array(b * len).fill(-1e9);
    const count = new Float32Array(b);
    const emb = this.weights.embeddings;
    const rows = emb.length / EMBED_DIM;
    batch.forEach((tokens, r) => {
      const n = Math.min(tokens.length, USE_LITE_MAX_TOKENS);
      count[r] = Math.max(n, 1);
      for (let j = 0; j < n; j++) {
        const id = tokens[j] ?? 0;
        if (id < 0 || id >= rows) throw new EngramError('EMBEDDER_ERROR', `Token id out of range: ${id}`);
        const dst = (r * len + j) * EMBED_DIM;
        const src = id * EMBED_DIM;
        const pos = j * EMBED_DIM;
        // The TF graph adds the embedding twice: once scattered, once inside AddTimingSignal.
        for (let k = 0; k < EMBED_DIM; k++) x[dst + k] = 2 * (emb[src + k] ?? 0) + (this.timing[pos + k] ?? 0);
        mask[r * len + j] = 1;
        bias[r * len + j] = 0;
      }
    });
    const io = USE_LITE_ONNX_IO;
    const f32 = (data: Float32Array, dims: number[]): TensorData => ({ type: 'float32', data, dims });
    const outputs = await this.pool.run(
      {
        [io.x]: f32(x, [b, len, EMBED_DIM]),
        [io.mask]: f32(mask, [b, len, 1]),
        [io.bias]: f32(bias, [b, 1, 1, len]),
        [io.count]: f32(count, [b, 1]),
      },
      [io.y],
      b * len,
    );
    const y = outputs[io.y]?.data;
    if (!(y instanceof Float32Array) || y.length !== b * USE_LITE_DIM) {
      throw new EngramError('EMBEDDER_ERROR', 'The local model returned an unexpected output');
    }
    const vectors: Float32Array[] = [];
    for (let r = 0; r < b; r++) vectors.push(l2Normalize(y.slice(r * USE_LITE_DIM, (r + 1) * USE_LITE_DIM)));
    return vectors;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** Sinusoidal position signal for positions 0..127: [sin(p·inv), cos(p·inv)], float32 like TF. */
function timingTable(inv: Float32Array): Float32Array {
  const half = inv.length;
  const table = new Float32Array(USE_LITE_MAX_TOKENS * 2 * half);
  for (let p = 0; p < USE_LITE_MAX_TOKENS; p++) {
    for (let k = 0; k < half; k++) {
      const angle = Math.fround(p * (inv[k] ?? 0));
      table[p * 2 * half + k] = Math.sin(angle);
      table[p * 2 * half + half + k] = Math.cos(angle);
    }
  }
  return table;
}

/** x / sqrt(max(sum(x²), 1e-12)), as the reference graph's l2_normalize. */
function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const value of v) sum += value * value;
  const scale = 1 / Math.sqrt(Math.max(sum, 1e-12));
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) * scale;
  return v;
}
