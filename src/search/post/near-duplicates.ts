import { cosine } from '../../vector/cosine.js';
import type { Scored } from './scored-hit.js';

/**
 * Drops hits whose vector has cosine ≥ `threshold` with a better hit already kept. Hits are
 * visited best first; hits without a vector are always kept.
 */
export function removeNearDuplicates<T extends Scored>(
  hits: readonly T[],
  vectors: ReadonlyMap<string, Float32Array>,
  threshold = 0.95,
): T[] {
  const kept: T[] = [];
  const keptVectors: Float32Array[] = [];
  for (const hit of [...hits].sort((a, b) => b.score - a.score)) {
    const v = vectors.get(hit.memory.id);
    if (v && keptVectors.some((k) => cosine(k, v) >= threshold)) continue;
    kept.push(hit);
    if (v) keptVectors.push(v);
  }
  return kept;
}
