import { normalizeTurnText } from './formation/normalize-turn-text.js';

/**
 * Texts whose normalised form is remembered (recalls and searches compare the same hits' texts
 * query after query): at most this many, of at most {@link MAX_REMEMBERED_LENGTH} characters
 * (≤ 8 MB); the memory is emptied when full.
 */
const MAX_REMEMBERED = 4096;
const MAX_REMEMBERED_LENGTH = 512;
const remembered = new Map<string, string>();

/** `normalizeTurnText` of a text, remembered: a pure function of the text, so reuse changes nothing. */
export function normalizedText(text: string): string {
  if (text.length > MAX_REMEMBERED_LENGTH) return normalizeTurnText(text);
  let key = remembered.get(text);
  if (key === undefined) {
    key = normalizeTurnText(text);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(text, key);
  }
  return key;
}
