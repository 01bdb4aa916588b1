import { cosine } from '../../vector/cosine.js';

/** The best cosine of `vector` with any of the query vectors (0 when there are none). */
export function maxCosine(vector: Float32Array, queries: readonly Float32Array[]): number {
  let best = 0;
  let first = true;
  for (const q of queries) {
    const c = cosine(q, vector);
    if (first || c > best) best = c;
    first = false;
  }
  return best;
}
