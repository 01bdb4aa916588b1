import type { MemoryLevel } from '../../model/memory-type.js';
import type { Reranker, RerankRequest, RerankScore } from './reranker.js';

/** Weight per structural level; a memory without a level counts as `fact`. */
export type LevelWeights = Record<MemoryLevel, number>;

/** @default {topic: 1, concept: 1, fact: 1} (the multi-path searcher's defaults) */
export const DEFAULT_LEVEL_WEIGHTS: LevelWeights = { topic: 1, concept: 1, fact: 1 };

/**
 * `cosine-local`: score = cosine with the query vectors × the weight of the memory's level
 * (topic / concept / fact). Ties keep the incoming order.
 */
export function createCosineLocalReranker(options: { levelWeights?: Partial<LevelWeights> } = {}): Reranker {
  const weights = { ...DEFAULT_LEVEL_WEIGHTS, ...options.levelWeights };
  return {
    name: 'cosine-local',
    async rerank(request: RerankRequest): Promise<RerankScore[]> {
      return request.candidates
        .map((c, index) => ({ index, score: c.cosine * weights[c.memory.level ?? 'fact'] }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, request.topK);
    },
  };
}
