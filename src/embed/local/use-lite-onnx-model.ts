import { availableParallelism } from 'node:os';
import { EngramError } from '../../model/errors.js';
import { buildUseLiteOnnx, USE_LITE_ONNX_IO } from './use-lite-graph.js';
import type { UseLiteWeights } from './use-lite-weights.js';

type Ort = typeof import('onnxruntime-node');
type Session = Awaited<ReturnType<Ort['InferenceSession']['create']>>;

/** Tokens beyond this position are dropped, as in the reference graph (ClipToMaxLength). */
export const USE_LITE_MAX_TOKENS = 128;
/** Output dimension of USE lite. */
export const USE_LITE_DIM = 512;
const EMBED_DIM = 256;

export interface UseLiteOnnxOptions {
  /** Intra-op threads of onnxruntime (threads working on one forward pass). @default 1 */
  threads?: number | undefined;
  /** Forward passes run at once (batches of one call, or of concurrent calls). @default os.availableParallelism() */
  parallelRuns?: number | undefined;
  /** Upper bound on batch × padded length per forward pass (memory bound). @default 2048 */
  maxBatchTokens?: number | undefined;
  /**
   * Let onnxruntime's worker threads spin while waiting for work: a little faster on an idle
   * machine, wasteful when the cores are shared.
   * @default false
   */
  spinning?: boolean | undefined;
}

/**
 * The USE-lite forward pass on onnxruntime's native CPU kernels. The ONNX graph is built in
 * memory from the TF.js weights at load time ({@link buildUseLiteOnnx}); nothing is downloaded.
 * Texts are sorted by length and packed into batches so padding stays small; results come
 * back in input order.
 */
export class UseLiteOnnxModel {
  private closed = false;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly running = new Set<Promise<unknown>>();

  private constructor(
    private readonly ort: Ort,
    private readonly session: Session,
    private readonly weights: UseLiteWeights,
    private readonly timing: Float32Array,
    private readonly maxBatchTokens: number,
    private readonly parallelRuns: number,
  ) {}

  static async load(weights: UseLiteWeights, options: UseLiteOnnxOptions = {}): Promise<UseLiteOnnxModel> {
    let ort: Ort;
    try {
      ort = await import('onnxruntime-node');
    } catch (cause) {
      throw new EngramError('CONFIG_ERROR', 'The local embedder needs the npm package onnxruntime-node', { cause });
    }
    const threads = options.threads ?? 1;
    const parallelRuns = options.parallelRuns ?? availableParallelism();
    for (const [name, value] of [
      ['threads', threads],
      ['parallelRuns', parallelRuns],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new EngramError('CONFIG_ERROR', `${name} must be a positive integer, got ${String(value)}`);
      }
    }
    const session = await ort.InferenceSession.create(buildUseLiteOnnx(weights), {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      extra: { session: { intra_op: { allow_spinning: options.spinning === true ? '1' : '0' } } },
    });
    return new UseLiteOnnxModel(
      ort,
      session,
      weights,
      timingTable(weights.invTimescales),
      options.maxBatchTokens ?? 2048,
      parallelRuns,
    );
  }

  /** Embeds token id lists; one l2-normalized 512-d vector per list, in order. */
  async embedTokens(tokenLists: number[][], signal?: AbortSignal): Promise<Float32Array[]> {
    const order = tokenLists.map((_, i) => i);
    const lengths = tokenLists.map((t) => Math.min(t.length, USE_LITE_MAX_TOKENS));
    order.sort((a, b) => (lengths[a] ?? 0) - (lengths[b] ?? 0));
    const out: Float32Array[] = new Array<Float32Array>(tokenLists.length);
    const sorted = order.map((i) => Math.max(1, lengths[i] ?? 0));
    await Promise.all(
      planBatches(sorted, this.maxBatchTokens).map(async ([start, end]) => {
        const ids = order.slice(start, end);
        const vectors = await this.run(
          ids.map((i) => tokenLists[i] ?? []),
          signal,
        );
        ids.forEach((id, k) => {
          out[id] = vectors[k] ?? new Float32Array(USE_LITE_DIM);
        });
      }),
    );
    return out;
  }

  /** Runs one padded batch when one of the `parallelRuns` slots is free. */
  private async run(batch: number[][], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    while (this.active >= this.parallelRuns) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    const work = (async () => {
      signal?.throwIfAborted();
      return this.forward(batch);
    })();
    this.running.add(work);
    try {
      return await work;
    } finally {
      this.running.delete(work);
      this.active--;
      this.waiting.shift()?.();
    }
  }

  private async forward(batch: number[][]): Promise<Float32Array[]> {
    if (this.closed) throw new EngramError('EMBEDDER_ERROR', 'The local embedder is closed');
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
    const { Tensor } = this.ort;
    const io = USE_LITE_ONNX_IO;
    let outputs: Awaited<ReturnType<Session['run']>>;
    try {
      outputs = await this.session.run({
        [io.x]: new Tensor('float32', x, [b, len, EMBED_DIM]),
        [io.mask]: new Tensor('float32', mask, [b, len, 1]),
        [io.bias]: new Tensor('float32', bias, [b, 1, 1, len]),
        [io.count]: new Tensor('float32', count, [b, 1]),
      });
    } catch (cause) {
      throw new EngramError('EMBEDDER_ERROR', 'The local embedder failed to run the model', { cause });
    }
    const y = outputs[io.y]?.data;
    if (!(y instanceof Float32Array) || y.length !== b * USE_LITE_DIM) {
      throw new EngramError('EMBEDDER_ERROR', 'The local model returned an unexpected output');
    }
    const vectors: Float32Array[] = [];
    for (let r = 0; r < b; r++) vectors.push(l2Normalize(y.slice(r * USE_LITE_DIM, (r + 1) * USE_LITE_DIM)));
    return vectors;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.running]);
    await this.session.release();
  }
}

/** Cost of one forward pass, in padded tokens, beyond the tokens themselves. */
const CALL_OVERHEAD_TOKENS = 24;
/** Most sentences in one forward pass. */
const MAX_BATCH_ROWS = 256;

/**
 * Splits ascending lengths into contiguous batches minimizing padded tokens plus a per-call
 * overhead (dynamic programming), with batch rows × longest length ≤ maxBatchTokens.
 * Returns [start, end) pairs.
 */
export function planBatches(sortedLengths: number[], maxBatchTokens: number): Array<[number, number]> {
  const n = sortedLengths.length;
  const cost = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Int32Array(n + 1);
  cost[0] = 0;
  for (let j = 1; j <= n; j++) {
    const longest = sortedLengths[j - 1] ?? 1;
    for (let i = j - 1; i >= 0 && j - i <= MAX_BATCH_ROWS; i--) {
      const rows = j - i;
      if (rows > 1 && rows * longest > maxBatchTokens) break;
      const c = (cost[i] ?? 0) + rows * longest + CALL_OVERHEAD_TOKENS;
      if (c < (cost[j] ?? 0)) {
        cost[j] = c;
        from[j] = i;
      }
    }
  }
  const batches: Array<[number, number]> = [];
  for (let j = n; j > 0; j = from[j] ?? 0) batches.push([from[j] ?? 0, j]);
  return batches.reverse();
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
