import type { Memory } from './memory.js';
import { validityAt } from './resolve-validity.js';
import type { HitValidity } from './hit.js';
import { normalizedText } from './normalized-text.js';

/**
 * The hits with one memory per normalised text (the first, i.e. best, of each), so recall and
 * the context block (and search) never show the same statement twice even when an explicit add repeated a
 * stored text. Same text is the episodes' rule (`normalizeTurnText`, remembered across requests).
 */
export function distinctHits<T extends { memory: Memory }>(hits: readonly T[]): T[] {
  const seen = new Set<string>();
  return hits.filter((hit) => {
    const key = normalizedText(hit.memory.text);
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
