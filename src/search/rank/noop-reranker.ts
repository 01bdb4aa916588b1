import type { Reranker, RerankRequest, RerankScore } from './reranker.js';

/**
 * `noop`: keeps the incoming order and scores, so the core recall fusion is the ranking. This is
 * the default reranker of every path.
 */
export const noopReranker: Reranker = {
  name: 'noop',
  async rerank(request: RerankRequest): Promise<RerankScore[]> {
    return request.candidates.slice(0, request.topK).map((c, index) => ({ index, score: c.score }));
  },
};
