import { cosine } from '../../vector/cosine.js';
import type { Scored } from './scored-hit.js';

/**
 * Maximal marginal relevance: repeatedly picks the hit maximising
 * `λ·score − (1 − λ)·max cosine with the hits already picked`, until `k` are picked.
 * λ = 1 is plain score order. Hits without a vector have no similarity penalty.
 */
export function mmrSelect<T extends Scored>(
  hits: readonly T[],
  vectors: ReadonlyMap<string, Float32Array>,
  k: number,
  lambda = 0.7,
): T[] {
  const pool = [...hits];
  const picked: T[] = [];
  while (picked.length < k && pool.length > 0) {
    let bestIndex = 0;
    let bestValue = -Infinity;
    pool.forEach((hit, i) => {
      const v = vectors.get(hit.memory.id);
      let similarity = 0;
      if (v) {
        for (const p of picked) {
          const pv = vectors.get(p.memory.id);
          if (pv) similarity = Math.max(similarity, cosine(v, pv));
        }
      }
      const value = lambda * hit.score - (1 - lambda) * similarity;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = i;
      }
    });
    picked.push(pool.splice(bestIndex, 1)[0] as T);
  }
  return picked;
}
