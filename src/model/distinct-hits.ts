import type { Memory } from './memory.js';
import { validityAt } from './resolve-validity.js';
import type { HitValidity } from './hit.js';
import { normalizeTurnText } from './formation/normalize-turn-text.js';

/**
 * The hits with one memory per normalised text (the first, i.e. best, of each), so recall and
 * the context block (and search) never show the same statement twice even when an explicit add repeated a
 * stored text. Same text is the episodes' rule (`normalizeTurnText`).
 */
export function distinctHits<T extends { memory: Memory }>(
  hits: readonly T[],
  /** The normalised form of a text; pass a remembering one when the same hits are checked again. @default normalizeTurnText */
  keyOf: (text: string) => string = normalizeTurnText,
): T[] {
  const seen = new Set<string>();
  return hits.filter((hit) => {
    const key = keyOf(hit.memory.text);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The hits, each explanation saying how its memory stands at `at` (recall or search with `includeSuperseded`). */
export function withValidity<T extends { memory: Memory; explanation: { validity?: HitValidity | undefined } }>(
  hits: readonly T[],
  at: string,
): T[] {
  return hits.map((hit) => ({ ...hit, explanation: { ...hit.explanation, validity: validityAt(hit.memory, at) } }));
}

/** {@link normalizeTurnText} remembering its answers (for one request's repeated {@link distinctHits}). */
export function rememberingTextKeys(): (text: string) => string {
  const keys = new Map<string, string>();
  return (text) => {
    let key = keys.get(text);
    if (key === undefined) keys.set(text, (key = normalizeTurnText(text)));
    return key;
  };
}
