/** BM25 constants of the reference recall. */
export interface Bm25Params {
  /** Term-frequency saturation. @default 1.2 */
  k1: number;
  /** Length normalisation. @default 0.75 */
  b: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export interface Bm25Scores {
  /** Raw BM25 per document, in input order. */
  raw: Float64Array;
  /** Raw divided by the maximum; all zero when nothing matched. */
  normalized: Float64Array;
}

/**
 * A second, lighter field per document (e.g. the turn a reply answers, the day it was said):
 * its tokens count `weight` times as much as the document's own, in term frequency and in length
 * (BM25F), so a word found only in the context ranks below the same word in the document.
 */
export interface Bm25Context {
  /** Context tokens per document, in the order of the documents (missing = none). */
  tokens: ReadonlyArray<readonly string[] | undefined>;
  /** @default 0.5 in Engram's profile */
  weight: number;
}

/**
 * A pool's counts for the distinct query tokens: term frequency per (document, token) in one flat
 * array (row `i`, column = the token's position), document frequencies, weighted lengths.
 */
export interface TermCounts {
  tf: Float64Array;
  df: Float64Array;
  lengths: Float64Array;
  totalLength: number;
}

/**
 * Counts one occurrence (at `weight`) of the query token at column `p` in the document whose
 * count is `tf[cell]`; the document's first one adds it to the token's document frequency.
 */
export function countMatch(tf: Float64Array, df: Float64Array, cell: number, p: number, weight: number): void {
  if (tf[cell] === 0) df[p] = (df[p] as number) + 1;
  tf[cell] = (tf[cell] as number) + weight;
}

/** Counts per (document, distinct query token) in one flat array, with weighted lengths. */
function countTerms(
  position: ReadonlyMap<string, number>,
  documents: readonly (readonly string[])[],
  context: Bm25Context | undefined,
): TermCounts {
  const n = documents.length;
  const q = position.size;
  const tf = new Float64Array(n * q);
  const df = new Float64Array(q);
  const lengths = new Float64Array(n);
  let totalLength = 0;
  // Most document tokens match no query token: a token whose length no query token has is passed
  // over without hashing it (lengths from 31 on share the last bit).
  let lengths31 = 0;
  for (const token of position.keys()) lengths31 |= 1 << Math.min(token.length, 31);
  const add = (i: number, tokens: readonly string[], weight: number): void => {
    for (const token of tokens) {
      if ((lengths31 & (1 << Math.min(token.length, 31))) === 0) continue;
      const p = position.get(token);
      if (p !== undefined) countMatch(tf, df, i * q + p, p, weight);
    }
  };
  for (let i = 0; i < n; i++) {
    const doc = documents[i] as readonly string[];
    add(i, doc, 1);
    let length = doc.length;
    const ctx = context?.tokens[i];
    if (context !== undefined && ctx !== undefined && ctx.length > 0) {
      add(i, ctx, context.weight);
      length += context.weight * ctx.length;
    }
    lengths[i] = length;
    totalLength += length;
  }
  return { tf, df, lengths, totalLength };
}

/**
 * BM25 of each document against the query tokens, with statistics taken over `documents` only
 * (the candidate pool). idf = ln(1 + (N − df + 0.5) / (df + 0.5)). Query tokens count with their
 * multiplicity, as in the reference. With a `context`, each document also matches through its
 * context field at the context's weight (without one the scores are the reference's exactly).
 */
export function bm25Scores(
  queryTokens: readonly string[],
  documents: readonly (readonly string[])[],
  params: Bm25Params = DEFAULT_BM25,
  context?: Bm25Context,
): Bm25Scores {
  const n = documents.length;
  if (n === 0 || queryTokens.length === 0) return { raw: new Float64Array(n), normalized: new Float64Array(n) };

  // Only the query's few distinct tokens are ever counted: a pool is scanned once.
  const { position, queryPositions } = queryColumns(queryTokens);
  return scoreCounts(countTerms(position, documents, context), queryPositions, n, params);
}

/**
 * The column of each distinct query term in a pool's {@link TermCounts} (in the order first
 * seen), and each query term's column in query order (a repeated term counts again).
 */
export function queryColumns<T>(query: readonly T[]): { position: Map<T, number>; queryPositions: number[] } {
  const position = new Map<T, number>();
  for (const term of query) if (!position.has(term)) position.set(term, position.size);
  return { position, queryPositions: query.map((term) => position.get(term) as number) };
}

/**
 * BM25 of `n` documents from their {@link TermCounts}; `queryPositions` gives each query token's
 * column (a token repeated in the query counts again). Shared by every representation of the
 * documents, so equal counts give equal scores.
 */
export function scoreCounts(
  counts: TermCounts,
  queryPositions: readonly number[],
  n: number,
  params: Bm25Params,
): Bm25Scores {
  const { tf, df, lengths, totalLength } = counts;
  const raw = new Float64Array(n);
  const normalized = new Float64Array(n);
  const q = df.length;
  const avgLength = totalLength / n || 1;
  const { k1, b } = params;
  const idf = Array.from(df, (d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  let max = 0;
  for (let i = 0; i < n; i++) {
    const lengthNorm = k1 * (1 - b + (b * (lengths[i] as number)) / avgLength);
    let score = 0;
    for (const p of queryPositions) {
      const f = tf[i * q + p] as number;
      if (f === 0) continue;
      score += ((idf[p] as number) * f * (k1 + 1)) / (f + lengthNorm);
    }
    raw[i] = score;
    if (score > max) max = score;
  }
  if (max > 0) for (let i = 0; i < n; i++) normalized[i] = (raw[i] as number) / max;
  return { raw, normalized };
}
