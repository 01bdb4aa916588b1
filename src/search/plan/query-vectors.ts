import type { Embedder } from '../../embed/embedder.js';
import { withCheckedVectors } from '../../embed/with-checked-vectors.js';
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

/**
 * Embeds every query text in ONE embedder call. A caller's precomputed vector of the query
 * stands for the text equal to the query, else for the first text (the planner's rephrasing of
 * it); only the other texts are embedded.
 */
export async function embedQueryTexts(
  embedder: Embedder,
  texts: string[],
  signal?: AbortSignal,
  given?: { query: string; vector: Float32Array },
): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const at = given === undefined ? -1 : Math.max(0, texts.indexOf(given.query.trim()));
  const rest = texts.filter((_, i) => i !== at);
  // Checked once: the facade's embedder is a checked one already, any other is wrapped here.
  const checked = withCheckedVectors(embedder);
  const vectors = rest.length === 0 ? [] : await checked.embed(rest, { signal, role: 'query' });
  if (given === undefined) return vectors;
  return [...vectors.slice(0, at), given.vector, ...vectors.slice(at)];
}
