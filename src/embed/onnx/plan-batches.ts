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
