import { ENGRAM_PROFILE } from '../recall/recall-profile.js';
import { RerankerRegistry } from '../search/rank/reranker-registry.js';
import { Searcher } from '../search/searcher.js';
import { calibratedWeights } from './calibrated-weights.js';
import type { FacadeContext } from './facade-context.js';

/**
 * The instance's multi-path searcher: its `search` options (LLM, web providers, collection access,
 * extra rerankers), the default profile's weights (calibrated ones when measured with this
 * embedder), and usage recorded unless `trackUsage` is false.
 */
export function openSearcher(ctx: FacadeContext): Searcher {
  const { options } = ctx;
  return new Searcher({
    store: ctx.store,
    embedder: ctx.embedder,
    llm: options.search?.llm,
    web: options.search?.web,
    canRead: options.search?.canRead,
    rerankers: new RerankerRegistry(options.search?.rerankers ?? []),
    weights: ENGRAM_PROFILE.resolveWeights({
      config: ctx.recallDefaults.lexicalWeights,
      env: options.env ?? process.env,
      calibrated: calibratedWeights(ctx.recallDefaults, ctx.embedder),
    }),
    clock: ctx.clock,
    tokenCache: ctx.tokenCache,
    recordUsage: options.trackUsage === false ? undefined : (tenant, ids) => ctx.recordUsage(tenant, ids),
  });
}
