import type { Embedder } from '../embed/embedder.js';
import type { InputLimits } from '../model/validate.js';
import type { FormationEventListener } from './formation-event.js';
import { resolveFormation, type FormationOptions } from './formation-options.js';
import { FormationService, type FormationServiceDeps } from './formation-service.js';
import type { FormationStore } from './formation-store.js';
import { recallNeighbours, type NeighbourRecall } from './recall-neighbours.js';
import type { EmbedTexts, RunJobDeps } from './run-job.js';

/** What the facade hands formation. */
export interface FormationParts {
  store: FormationStore;
  options: FormationOptions;
  embedder: Embedder;
  newId: () => string;
  env: Record<string, string | undefined>;
  /** The facade's checked embedding (model check of the scope, vector checks). */
  embed: EmbedTexts;
  /** The facade's recall, without usage tracking. */
  recall: NeighbourRecall;
  clock: () => Date;
  limits: Pick<InputLimits, 'maxTextLength' | 'maxLimit'>;
  withRetry: <T>(fn: () => Promise<T>) => Promise<T>;
  archiveTurns: RunJobDeps['archiveTurns'];
  guard?: FormationServiceDeps['guard'];
  onEvent?: FormationEventListener | undefined;
}

/**
 * A candidate's text is an LLM's output, which may hold what the policy masks: the neighbour
 * query (an embedding input) is masked as every recall query is.
 */
function maskedQueries(recall: NeighbourRecall, guard: FormationParts['guard']): NeighbourRecall {
  if (guard === undefined) return recall;
  return async (query, options) => recall(await guard.query(query, options.scope.tenant), options);
}

/** Resolves the options (CONFIG_ERROR for unusable ones) and starts formation (its worker too, when it has one). */
export function openFormationService(parts: FormationParts): FormationService {
  const config = resolveFormation(parts.options, { embedder: parts.embedder, newId: parts.newId, env: parts.env });
  return new FormationService(
    {
      store: parts.store,
      embed: parts.embed,
      neighbours: recallNeighbours(maskedQueries(parts.recall, parts.guard)),
      clock: parts.clock,
      limits: parts.limits,
      withRetry: parts.withRetry,
      archiveTurns: parts.archiveTurns,
      guard: parts.guard,
      onEvent: parts.onEvent,
    },
    config,
  );
}
