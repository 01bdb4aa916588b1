import { normalizeTurnText } from '../../model/formation/normalize-turn-text.js';
import type { Scored } from './scored-hit.js';

/**
 * Texts whose normalised form is remembered (searches dedupe the same candidates' texts query
 * after query): at most this many, of at most {@link MAX_REMEMBERED_LENGTH} characters (≤ 8 MB).
 */
const MAX_REMEMBERED = 4096;
const MAX_REMEMBERED_LENGTH = 512;
const normalized = new Map<string, string>();

/** `normalizeTurnText` of a text, remembered: a pure function of the text, so reuse changes nothing. */
function textKey(text: string): string {
  if (text.length > MAX_REMEMBERED_LENGTH) return normalizeTurnText(text);
  let key = normalized.get(text);
  if (key === undefined) {
    key = normalizeTurnText(text);
    if (normalized.size >= MAX_REMEMBERED) normalized.clear();
    normalized.set(text, key);
  }
  return key;
}

/**
 * Keeps one hit per memory text (normalised as episodes are, so recall and search agree on what
 * "the same text" is), the one with the highest score; the first seen wins a
 * tie. Order of the survivors follows their first appearance.
 */
export function dedupeByText<T extends Scored>(hits: readonly T[]): T[] {
  const best = new Map<string, T>();
  const order: string[] = [];
  for (const hit of hits) {
    const key = textKey(hit.memory.text);
    const seen = best.get(key);
    if (!seen) {
      best.set(key, hit);
      order.push(key);
    } else if (hit.score > seen.score) best.set(key, hit);
  }
  return order.map((k) => best.get(k) as T);
}
