import type { FormationService } from '../formation/formation-service.js';
import { openFormationService } from '../formation/open-formation-service.js';
import type { NeighbourRecall } from '../formation/recall-neighbours.js';
import { EngramError } from '../model/errors.js';
import { FormationGuard } from '../safety/formation-guard.js';
import { archiveFormedTurns } from './archive-formed-turns.js';
import type { FacadeContext } from './facade-context.js';

/**
 * The instance's formation over the store's formation storage, null when it has none (a custom
 * store): the facade's checked embedding (model check of the scope first), `recall` for the
 * neighbours of candidates, the write guard's masking of turns, events reported as `formation`.
 */
export function openFacadeFormation(ctx: FacadeContext, recall: NeighbourRecall): FormationService | null {
  const store = ctx.store.formation;
  if (!store) return null;
  return openFormationService({
    store,
    options: ctx.options.formation ?? {},
    embedder: ctx.embedder,
    newId: ctx.generateId,
    env: ctx.options.env ?? process.env,
    embed: async (texts, scope) => {
      await ctx.embedding.checkModel(scope);
      const vectors = await ctx.embedding.embed(texts, 'document');
      return { vectors, embedding: { model: ctx.embedder.model, dim: vectors[0]?.length ?? ctx.embedder.dim } };
    },
    recall,
    clock: ctx.clock,
    limits: ctx.limits,
    withRetry: ctx.withRetry,
    archiveTurns: (tenant, ids, context) => archiveFormedTurns(ctx, tenant, ids, context),
    guard: new FormationGuard(ctx.guard),
    onEvent: (event) => ctx.options.onEvent?.({ type: 'formation', formation: event }),
  });
}

/** The instance's formation; UNSUPPORTED when its store has no formation storage. */
export function requireFormation(formation: FormationService | null, storeKind: string): FormationService {
  if (!formation) {
    throw new EngramError('UNSUPPORTED', `the ${storeKind} store has no formation storage (episodes, history, queue)`);
  }
  return formation;
}
