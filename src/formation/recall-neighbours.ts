import type { Hit } from '../model/hit.js';
import type { MemoryType } from '../model/memory-type.js';
import type { Scope } from '../model/scope.js';
import { NEIGHBOUR_TYPES, type NeighbourFinder } from './neighbours.js';
import { factScope } from './window-of-job.js';

/** A recall as formation asks it: valid-now memories only, and without recording their use. */
export type NeighbourRecall = (
  query: string,
  options: { scope: Scope; limit: number; types: MemoryType[]; threshold: number; signal?: AbortSignal | undefined },
) => Promise<{ hits: Hit[] }>;

/**
 * Neighbours from Engram's own recall: the candidate's text against the memories of the
 * window's fact scope (its scope without the session), formed types only (episodes are
 * evidence, not facts), every score kept (threshold -1) so the consolidator sees the nearest
 * ones whatever they score, with each hit's cosine.
 */
export function recallNeighbours(recall: NeighbourRecall): NeighbourFinder {
  return async (candidate, { scope, limit, signal }) => {
    const result = await recall(candidate.text, {
      scope: factScope(scope),
      limit,
      types: [...NEIGHBOUR_TYPES],
      threshold: -1,
      signal,
    });
    return result.hits.map((hit) => ({ memory: hit.memory, cosine: hit.explanation.cosine }));
  };
}
