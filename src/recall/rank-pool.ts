import { topK } from '../vector/top-k.js';
import type { LexicalWeights } from './lexical-weights.js';
import { fuseLinear, type FusionDocument } from './linear-fusion.js';
import { compareCandidates, type RecallCandidate } from './recall-candidate.js';
import type { RecallProfileSpec } from './recall-profile.js';

/** A ranked pool: its best `limit` candidates, best first, and the weights they were fused with. */
export interface PoolRanking {
  ranked: RecallCandidate[];
  denseWeight: number;
  lexicalWeight: number;
}

/**
 * Ranks a candidate pool the way the recall does: the profile's fusion of pool BM25 and cosine
 * (written into each candidate's `bm25`, `bm25Raw` and `fused`), then the best `limit` by
 * {@link compareCandidates}, by partial selection. `tokens[i]` are the tokens of `pool[i]`.
 * With no query tokens the ranking is dense only.
 */
export function rankPool(
  queryTokens: readonly string[],
  pool: readonly RecallCandidate[],
  tokens: ReadonlyArray<readonly string[]>,
  options: { weights: LexicalWeights; profile: Pick<RecallProfileSpec, 'tokenize' | 'bm25'> },
  limit: number,
): PoolRanking {
  const documents: FusionDocument[] = pool.map((c, i) => ({ tokens: tokens[i] ?? [], cosine: c.cosine }));
  const fusion = fuseLinear(queryTokens, documents, {
    weights: options.weights,
    tokenize: options.profile.tokenize,
    bm25: options.profile.bm25,
  });
  pool.forEach((c, i) => {
    c.bm25 = fusion.bm25[i] as number;
    c.bm25Raw = fusion.bm25Raw[i] as number;
    c.fused = fusion.fused[i] as number;
  });
  return {
    ranked: topK(pool, limit, compareCandidates),
    denseWeight: fusion.denseWeight,
    lexicalWeight: fusion.lexicalWeight,
  };
}
