import { bm25Scores, type Bm25Params, type Bm25Scores } from '../text/bm25.js';
import { bm25TermIdScores } from '../text/bm25-term-ids.js';
import type { TermDocument } from '../text/term-document.js';
import { lexicalWeightFor, type LexicalWeights } from './lexical-weights.js';
import type { PoolDocument } from '../text/pool-document.js';

/** The spread fusion's result for a pool, in input order. */
export interface SpreadFusionResult {
  /** Weights the three signals were averaged with for this pool (they sum to 1). */
  denseWeight: number;
  lexicalWeight: number;
  speakerWeight: number;
  /** BM25 over text and context, normalised by the pool maximum. */
  bm25: Float64Array;
  bm25Raw: Float64Array;
  /** 1 where the query names one of the memory's speakers. */
  speaker: Uint8Array;
  /** `denseWeight·cos + lexicalWeight·bm25 + speakerWeight·speaker`. */
  fused: Float64Array;
}

function spreadOf(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return 0;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i] as number;
  mean /= n;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += ((values[i] as number) - mean) ** 2;
  return Math.sqrt(sum / n);
}

/** 1 for documents whose speaker tokens include a query token. */
function speakerMatches(queryTokens: readonly string[], documents: readonly PoolDocument[]): Uint8Array {
  const query = new Set(queryTokens);
  const out = new Uint8Array(documents.length);
  documents.forEach((d, i) => (out[i] = d.speakers.some((s) => query.has(s)) ? 1 : 0));
  return out;
}

/**
 * Engram's fusion for conversations: three signals over the candidate pool — the cosine; BM25 over
 * each memory's text plus its context at `contextWeight` (BM25F, normalised by the pool maximum);
 * and whether the query names the memory's speaker. Each signal is scaled by its spread (standard
 * deviation) over the pool, so none dominates by its units alone, times its trust: `1 − w` for the
 * cosine, `w` for the words and `w` for the speaker, `w` being the lexical weight for the query's
 * length. The score is the weighted mean of the raw signals — the same order as a sum of z-scores
 * (score normalisation for rank fusion, Montague & Aslam 2001), but in the signals' own units, so a
 * threshold keeps its meaning. A signal that is constant over the pool (no word matched, no speaker
 * named) takes no part; with none left, or no query tokens, the score is the cosine.
 */
export function fuseSpread(
  queryTokens: readonly string[],
  documents: ReadonlyArray<PoolDocument & { cosine: number }>,
  options: { weights: LexicalWeights; bm25: Bm25Params; contextWeight: number },
): SpreadFusionResult {
  const n = documents.length;
  const scores = bm25Scores(
    queryTokens,
    documents.map((d) => d.tokens),
    options.bm25,
    { tokens: documents.map((d) => d.context), weight: options.contextWeight },
  );
  const speaker = queryTokens.length > 0 ? speakerMatches(queryTokens, documents) : new Uint8Array(n);
  const cosine = Float64Array.from(documents, (d) => d.cosine);
  return fuseSignals(cosine, scores, speaker, queryTokens.length, options.weights);
}

/**
 * {@link fuseSpread} over documents of term ids (a store's analysed documents), the query as ids
 * of their dictionary (-1 for a term it never numbered): the same numbers as over their strings.
 */
export function fuseSpreadTerms(
  queryIds: readonly number[],
  documents: readonly TermDocument[],
  cosines: ArrayLike<number>,
  options: { weights: LexicalWeights; bm25: Bm25Params; contextWeight: number },
): SpreadFusionResult {
  const n = documents.length;
  const scores = bm25TermIdScores(queryIds, documents, options.contextWeight, options.bm25);
  const speaker = new Uint8Array(n);
  if (queryIds.length > 0) {
    const query = new Set(queryIds);
    documents.forEach(({ terms, contextEnd }, i) => {
      for (let k = contextEnd; k < terms.length; k++) if (query.has(terms[k] as number)) return void (speaker[i] = 1);
    });
  }
  return fuseSignals(Float64Array.from(cosines), scores, speaker, queryIds.length, options.weights);
}

/** The spread fusion of a pool's three signals, each scaled by its spread times its trust. */
function fuseSignals(
  cosine: Float64Array,
  scores: Bm25Scores,
  speaker: Uint8Array,
  queryTokenCount: number,
  weights: LexicalWeights,
): SpreadFusionResult {
  const n = cosine.length;
  const w = queryTokenCount > 0 ? lexicalWeightFor(queryTokenCount, weights) : 0;
  const signals = [cosine, scores.normalized, speaker] as const;
  const trust = [1 - w, w, w];
  const raw = signals.map((s, i) => {
    const spread = spreadOf(s);
    return spread > 0 ? (trust[i] as number) / spread : 0;
  });
  const total = raw.reduce((a, b) => a + b, 0);
  const [denseWeight, lexicalWeight, speakerWeight] = total > 0 ? raw.map((r) => r / total) : [1, 0, 0];
  const fused = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    fused[i] =
      (denseWeight as number) * (cosine[i] as number) +
      (lexicalWeight as number) * (scores.normalized[i] as number) +
      (speakerWeight as number) * (speaker[i] as number);
  }
  return {
    denseWeight: denseWeight as number,
    lexicalWeight: lexicalWeight as number,
    speakerWeight: speakerWeight as number,
    bm25: scores.normalized,
    bm25Raw: scores.raw,
    speaker,
    fused,
  };
}
