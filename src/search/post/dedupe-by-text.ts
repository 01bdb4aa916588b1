import { normalizedText } from '../../model/normalized-text.js';
import type { Scored } from './scored-hit.js';

/**
 * Keeps one hit per memory text (normalised as episodes are, so recall and search agree on what
 * "the same text" is), the one with the highest score; the first seen wins a
 * tie. Order of the survivors follows their first appearance.
 */
export function dedupeByText<T extends Scored>(hits: readonly T[]): T[] {
  const best = new Map<string, T>();
  const order: string[] = [];
  for (const hit of hits) {
    const key = normalizedText(hit.memory.text);
    const seen = best.get(key);
    if (!seen) {
      best.set(key, hit);
      order.push(key);
    } else if (hit.score > seen.score) best.set(key, hit);
  }
  return order.map((k) => best.get(k) as T);
}
