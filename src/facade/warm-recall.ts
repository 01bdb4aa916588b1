import type { Scope } from '../model/scope.js';
import { runRecall } from '../recall/recall-pipeline.js';
import { RECALL_PROFILES } from '../recall/recall-profile.js';
import type { FacadeContext } from './facade-context.js';
import { scopeFilter } from './scope-filter.js';

/** One recall of the scope that records no usage: compiles the read path and reads its first rows. */
export async function warmRecall(ctx: FacadeContext, scope: Scope, queryVector: Float32Array): Promise<void> {
  const profile = RECALL_PROFILES[ctx.recallDefaults.profile];
  if (!profile) return;
  const weights = profile.resolveWeights({
    config: ctx.recallDefaults.lexicalWeights,
    env: ctx.options.env ?? process.env,
  });
  const filter = scopeFilter({ scope });
  const query = { query: 'warm up', queryVector, model: ctx.embedder.model, filter, limit: 10, threshold: 0 };
  await runRecall({ store: ctx.store, tokenCache: ctx.tokenCache }, { ...query, weights, profile }, 0);
}
