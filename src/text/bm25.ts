import type { Tokenizer } from './tokenizer.js';

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
 * BM25 of each document against the query tokens, with statistics taken over `documents` only
 * (the candidate pool). idf = ln(1 + (N − df + 0.5) / (df + 0.5)). Query tokens count with their
 * multiplicity, as in the reference.
 */
export function bm25Scores(
  queryTokens: readonly string[],
  documents: readonly (readonly string[])[],
  params: Bm25Params = DEFAULT_BM25,
): Bm25Scores {
  const n = documents.length;
  const raw = new Float64Array(n);
  const normalized = new Float64Array(n);
  if (n === 0 || queryTokens.length === 0) return { raw, normalized };

  const wanted = new Set(queryTokens);
  const termFreqs: Array<Map<string, number>> = [];
  const df = new Map<string, number>();
  let totalLength = 0;
  for (const doc of documents) {
    totalLength += doc.length;
    const tf = new Map<string, number>();
    for (const token of doc) if (wanted.has(token)) tf.set(token, (tf.get(token) ?? 0) + 1);
    for (const token of tf.keys()) df.set(token, (df.get(token) ?? 0) + 1);
    termFreqs.push(tf);
  }
  const avgLength = totalLength / n || 1;
  const { k1, b } = params;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const tf = termFreqs[i] as Map<string, number>;
    if (tf.size === 0) continue;
    const lengthNorm = k1 * (1 - b + (b * (documents[i] as readonly string[]).length) / avgLength);
    let score = 0;
    for (const token of queryTokens) {
      const f = tf.get(token);
      if (f === undefined) continue;
      const d = df.get(token) as number;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      score += (idf * f * (k1 + 1)) / (f + lengthNorm);
    }
    raw[i] = score;
    if (score > max) max = score;
  }
  if (max > 0) for (let i = 0; i < n; i++) normalized[i] = (raw[i] as number) / max;
  return { raw, normalized };
}

/** Tokenises every document once. */
export function tokenizeAll(texts: readonly string[], tokenize: Tokenizer): string[][] {
  return texts.map((text) => tokenize(text));
}
