/**
 * Size of the dense candidate pool of the reference recall:
 * `max(limit, min(rows, max(limit * 10, 50)))`; without query text the pool is just `limit`
 * (dense-only ranking needs no room for lexical re-ranking).
 */
export function candidatePoolSize(limit: number, rows: number, hasQueryText: boolean): number {
  if (!hasQueryText) return limit;
  return Math.max(limit, Math.min(rows, Math.max(limit * 10, 50)));
}
