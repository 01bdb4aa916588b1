import { bm25Scores, type Bm25Params } from '../text/bm25.js';
import type { Tokenizer } from '../text/tokenizer.js';
import { lexicalWeightFor, type LexicalWeights } from './lexical-weights.js';

/**
 * One document of a candidate pool, as the fusion sees it: its text, or its tokens when the
 * caller already has them (e.g. from a token cache), and its cosine with the query vector (0 when
 * the memory has no vector).
 */
export type FusionDocument =
  | { text: string; tokens?: readonly string[] | undefined; cosine: number }
  | { tokens: readonly string[]; cosine: number };

/** The fusion's result for a pool, in input order. */
export interface LinearFusionResult {
  denseWeight: number;
  lexicalWeight: number;
  /** Normalised BM25 per document (raw / pool max; all 0 when nothing matched). */
  bm25: Float64Array;
  bm25Raw: Float64Array;
  /** `(1 − w_lex)·cos + w_lex·bm25` per document. */
  fused: Float64Array;
}

/**
 * The reference fusion over a candidate pool: BM25 with statistics taken over the pool only,
 * normalised by the pool maximum, fused linearly with the cosine. `w_lex` depends on the query
 * length after stopwords (short ≤ 2 tokens). With no query tokens the ranking is dense only
 * (`w_lex` = 0). Shared by the core recall and the searcher's paths.
 */
export function fuseLinear(
  queryTokens: readonly string[],
  documents: readonly FusionDocument[],
  options: { weights: LexicalWeights; tokenize: Tokenizer; bm25: Bm25Params },
): LinearFusionResult {
  const n = documents.length;
  const useLexical = queryTokens.length > 0;
  const lexicalWeight = useLexical ? lexicalWeightFor(queryTokens.length, options.weights) : 0;
  const denseWeight = 1 - lexicalWeight;
  const fused = new Float64Array(n);
  if (!useLexical) {
    documents.forEach((d, i) => (fused[i] = d.cosine));
    return { denseWeight, lexicalWeight, bm25: new Float64Array(n), bm25Raw: new Float64Array(n), fused };
  }
  const scores = bm25Scores(
    queryTokens,
    documents.map((d) => d.tokens ?? ('text' in d ? options.tokenize(d.text) : [])),
    options.bm25,
  );
  documents.forEach((d, i) => (fused[i] = denseWeight * d.cosine + lexicalWeight * (scores.normalized[i] as number)));
  return { denseWeight, lexicalWeight, bm25: scores.normalized, bm25Raw: scores.raw, fused };
}
