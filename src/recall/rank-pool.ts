import { topK } from '../vector/top-k.js';
import type { LexicalWeights } from './lexical-weights.js';
import { fuseLinear } from './linear-fusion.js';
import type { PoolDocument } from './pool-document.js';
import { compareCandidates, type RecallCandidate } from './recall-candidate.js';
import type { RecallProfileSpec } from './recall-profile.js';
import { fuseSpread } from './spread-fusion.js';

/** The weights a pool was fused with (`speakerWeight` is 0 for the reference fusion). */
export interface PoolWeights {
  denseWeight: number;
  lexicalWeight: number;
  speakerWeight: number;
}

/** A ranked pool: its best `limit` candidates, best first, and the weights they were fused with. */
export interface PoolRanking extends PoolWeights {
  ranked: RecallCandidate[];
}

/** Per-document scores of a fused pool, in input order. */
export interface PoolScores extends PoolWeights {
  bm25: Float64Array;
  bm25Raw: Float64Array;
  speaker: Uint8Array;
  fused: Float64Array;
}

type ScoreProfile = Pick<RecallProfileSpec, 'tokenize' | 'bm25' | 'fusion' | 'contextWeight'>;

/**
 * Scores a pool with the profile's fusion: the reference linear fusion of the text's BM25 and the
 * cosine, or the spread fusion of text, context and speakers. Shared by the recall and by the
 * searcher's paths, so both rank a pool the same way.
 */
export function scorePool(
  queryTokens: readonly string[],
  documents: ReadonlyArray<PoolDocument & { cosine: number }>,
  options: { weights: LexicalWeights; profile: ScoreProfile },
): PoolScores {
  const { weights, profile } = options;
  if (profile.fusion === 'spread') {
    return fuseSpread(queryTokens, documents, { weights, bm25: profile.bm25, contextWeight: profile.contextWeight });
  }
  const linear = fuseLinear(queryTokens, documents, { weights, tokenize: profile.tokenize, bm25: profile.bm25 });
  return { ...linear, speakerWeight: 0, speaker: new Uint8Array(documents.length) };
}

/**
 * Ranks a candidate pool the way the recall does: {@link scorePool} (written into each candidate's
 * `bm25`, `bm25Raw`, `speaker` and `fused`), then the best `limit` by {@link compareCandidates}, by
 * partial selection. `documents[i]` describes `pool[i]`. With no query tokens the ranking is dense only.
 */
export function rankPool(
  queryTokens: readonly string[],
  pool: readonly RecallCandidate[],
  documents: readonly PoolDocument[],
  options: { weights: LexicalWeights; profile: ScoreProfile },
  limit: number,
): PoolRanking {
  const scores = scorePool(
    queryTokens,
    pool.map((c, i) => {
      const d = documents[i] as PoolDocument;
      return { tokens: d.tokens, context: d.context, speakers: d.speakers, cosine: c.cosine };
    }),
    options,
  );
  pool.forEach((c, i) => {
    c.bm25 = scores.bm25[i] as number;
    c.bm25Raw = scores.bm25Raw[i] as number;
    c.speaker = scores.speaker[i] as number;
    c.fused = scores.fused[i] as number;
  });
  return {
    ranked: topK(pool, limit, compareCandidates),
    denseWeight: scores.denseWeight,
    lexicalWeight: scores.lexicalWeight,
    speakerWeight: scores.speakerWeight,
  };
}
