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

/**
 * Runs texts through `run` in length-sorted batches ({@link planBatches}) at once and returns
 * the vectors in input order. `lengths[i]` is text i's padded-length cost (≥ 1); `run` gets the
 * input indices of one batch and returns one vector per index, in that order.
 */
export async function runInBatches(
  lengths: readonly number[],
  maxBatchTokens: number,
  run: (indices: number[]) => Promise<Float32Array[]>,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[a] ?? 0) - (lengths[b] ?? 0));
  const out = new Array<Float32Array>(lengths.length);
  const sorted = order.map((i) => Math.max(1, lengths[i] ?? 1));
  await Promise.all(
    planBatches(sorted, maxBatchTokens).map(async ([start, end]) => {
      const indices = order.slice(start, end);
      signal?.throwIfAborted();
      const vectors = await run(indices);
      indices.forEach((i, k) => {
        const v = vectors[k];
        if (!v) throw new Error(`batch returned ${vectors.length} vectors for ${indices.length} texts`);
        out[i] = v;
      });
    }),
  );
  return out;
}
