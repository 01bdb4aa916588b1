import { DEFAULT_LEXICAL_WEIGHTS } from '../../src/recall/lexical-weights.js';
import { rankPool } from '../../src/recall/rank-pool.js';
import { textDocument } from '../../src/text/pool-document.js';
import { newCandidate } from '../../src/recall/recall-candidate.js';
import { SEED_PROFILE } from '../../src/recall/recall-profile.js';

/** A pool member as a bench has it: id, text and cosine with the query. */
export interface PoolItem {
  id: string;
  text: string;
  cosine: number;
}

/**
 * The reference fusion over a pool the bench built itself (an exact pool, or every row read back
 * from SQLite): the recall's own {@link rankPool} with the `seed` profile and the default weights,
 * so the benches never retype the formula they compare the facade against. Best `k`, best first.
 */
export function referenceRank(
  query: string,
  pool: readonly PoolItem[],
  k: number,
): Array<{ id: string; score: number }> {
  const candidates = pool.map((p) => newCandidate(p.id, p.cosine, undefined, undefined, undefined));
  const ranking = rankPool(
    SEED_PROFILE.tokenize(query),
    candidates,
    pool.map((p) => textDocument(SEED_PROFILE.tokenize(p.text))),
    { weights: DEFAULT_LEXICAL_WEIGHTS, profile: SEED_PROFILE },
    k,
  );
  return ranking.ranked.map((c) => ({ id: c.id, score: c.fused }));
}
