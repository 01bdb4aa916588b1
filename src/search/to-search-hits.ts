import type { SearchHit } from '../model/search-result.js';
import type { SearchCandidate } from './paths/search-candidate.js';

/** The final candidates as hits: the score becomes `relevance`, every other score the explanation. */
export function toSearchHits(
  candidates: readonly SearchCandidate[],
  rewrites: ReadonlyMap<string, string>,
): SearchHit[] {
  return candidates.map((c) => ({
    memory: c.memory,
    relevance: c.score,
    collection: c.collection,
    explanation: {
      paths: [...c.paths].sort(),
      channels: c.channels,
      cosine: c.cosine,
      bm25: c.bm25,
      lexicalWeight: c.lexicalWeight,
      fused: c.fused,
      rerank: c.rerank,
      boost: c.boost,
      stage: c.stage,
    },
    rewritten: rewrites.get(c.memory.id),
  }));
}
