import type { Embedder } from '../embed/embedder.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { ParsedGoal } from '../model/parsed-goal.js';
import type { SearchOptions } from '../model/search-options.js';
import { mergeCandidates } from './paths/merge-candidates.js';
import { retrieveStage } from './paths/retrieve-stage.js';
import type { SearchCandidate } from './paths/search-candidate.js';
import type { StageContext } from './paths/stage-context.js';
import type { SearchPlanning } from './plan/plan-search.js';
import { embedQueryTexts } from './plan/query-vectors.js';
import { deepSearch, type DeepStage } from './reason/deep-search.js';

/** What deep search adds to a search. */
export interface DeepSearchOutcome {
  /** The merged candidates of every stage, post-processed again. */
  candidates: SearchCandidate[];
  stages: DeepStage[];
  /** Query-focused rewrites by memory id (when `deepRewrite`). */
  rewrites: Map<string, string>;
  /** Time of the second post-processing. */
  postMs: number;
}

/**
 * Deep search over the first stage's post-processed candidates: each phrase the model says is
 * still missing is embedded alone and retrieved as one more stage (the plan's goal with that phrase
 * as its query, its keys and tags cleared); the merged result is post-processed again. Failed
 * stages are recorded in `degraded` as `deep.{i}`.
 */
export async function runDeepSearch(
  llm: ChatModel,
  embedder: Embedder,
  context: StageContext,
  planning: SearchPlanning,
  first: SearchCandidate[],
  options: SearchOptions,
  post: (candidates: SearchCandidate[]) => Promise<SearchCandidate[]>,
): Promise<DeepSearchOutcome> {
  const { goal } = planning;
  const outcome = await deepSearch(
    llm,
    goal.rephrasedQuery,
    first,
    async (phrase, stage) => {
      const stageGoal: ParsedGoal = { ...goal, rephrasedQuery: phrase, memories: [phrase], keys: [], tags: [] };
      const [vector] = await embedQueryTexts(embedder, [phrase], options.signal);
      const query = {
        goal: stageGoal,
        queryTexts: [phrase],
        queryVectors: [vector as Float32Array],
        keywordTerms: planning.keywordsOf(phrase),
      };
      return retrieveStage(context, query, stage);
    },
    (lists) => mergeCandidates(lists),
    { stages: options.deepStages, rewrite: options.deepRewrite, signal: options.signal },
  );
  outcome.errors.forEach((e, i) => (context.degraded[`deep.${i}`] = e));
  const postStart = context.now();
  const candidates = await post(outcome.hits);
  return { candidates, stages: outcome.stages, rewrites: outcome.rewrites, postMs: context.now() - postStart };
}
