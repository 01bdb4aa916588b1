import type { Embedder } from '../../embed/embedder.js';
import { EngramError } from '../../model/errors.js';
import type { ParsedGoal } from '../../model/parsed-goal.js';

/** The texts a search embeds: `dedupe([rephrased, ...memories, ...subQuestions])`, order kept. */
export function queryTexts(goal: ParsedGoal, subQuestions: readonly string[] = []): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const text of [goal.rephrasedQuery, ...goal.memories, ...subQuestions]) {
    const t = text.trim();
    if (!t || seen.has(t)) continue;
    seen.add(t);
    out.push(t);
  }
  return out;
}

/** Embeds every query text in ONE embedder call. */
export async function embedQueryTexts(embedder: Embedder, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const vectors = await embedder.embed(texts, { signal, role: 'query' });
  if (vectors.length !== texts.length) {
    throw new EngramError('EMBEDDER_ERROR', `embedder returned ${vectors.length} vectors for ${texts.length} query texts`);
  }
  return vectors;
}
