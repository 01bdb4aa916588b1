import { mergeCandidates } from './merge-candidates.js';
import { runInternetPath } from './internet-path.js';
import type { PathInputs } from './path-inputs.js';
import { runPath } from './run-path.js';
import type { SearchCandidate } from './search-candidate.js';
import type { PathSpec } from './search-paths.js';
import type { StageContext, StageQuery } from './stage-context.js';

type PathTask = () => Promise<SearchCandidate[]>;

/**
 * One retrieval stage of the multi-path searcher: every path over every readable collection (the
 * internet path once, with the first), in parallel unless `sequential`. A failing path counts as
 * no candidates and is recorded in `degraded`. The lists are merged by id and each candidate is
 * stamped with the first stage that found it.
 */
export async function retrieveStage(
  context: StageContext,
  query: StageQuery,
  stage: number,
): Promise<SearchCandidate[]> {
  const tasks = stageTasks(context, query);
  const lists: SearchCandidate[][] = [];
  if (context.sequential) for (const task of tasks) lists.push(await task());
  else lists.push(...(await Promise.all(tasks.map((t) => t()))));
  const merged = mergeCandidates(lists);
  for (const c of merged) c.stage ??= stage;
  return merged;
}

/** The stage's path runs, in collection then path order; none starts before it is called. */
function stageTasks(context: StageContext, query: StageQuery): PathTask[] {
  const tasks: PathTask[] = [];
  const { web } = context;
  for (const collection of context.collections) {
    const inputs = pathInputs(context, query, collection);
    for (const spec of context.paths)
      tasks.push(() => guardedPath(context, spec.name, () => localPath(context, spec, inputs)));
    if (web !== null && collection === context.collections[0]) {
      tasks.push(() =>
        guardedPath(context, 'internet', () => runInternetPath(web, context.topK, inputs, context.degraded)),
      );
    }
  }
  return tasks;
}

function pathInputs(context: StageContext, query: StageQuery, collection: string | null): PathInputs {
  return {
    store: context.store,
    model: context.model,
    scope: collection === null ? context.scope : { ...context.scope, collection },
    validAt: context.validAt,
    collection,
    goal: query.goal,
    queryTexts: query.queryTexts,
    queryVectors: query.queryVectors,
    keywordTerms: query.keywordTerms,
    priority: context.priority,
    boost: context.boost,
    profile: context.profile,
    weights: context.weights,
    reranker: context.reranker,
    fulltext: context.fulltext,
    signal: context.signal,
    now: context.now,
  };
}

/** A local path with its bucket's k; its channel timings and failures join the stage's. */
async function localPath(context: StageContext, spec: PathSpec, inputs: PathInputs): Promise<SearchCandidate[]> {
  const outcome = await runPath(spec, context.limits[spec.bucket], inputs);
  addTimes(context.channelTimings, outcome.channelTimings);
  Object.assign(context.degraded, outcome.errors);
  return outcome.candidates;
}

/** Times a path under its name; a path that throws is degraded to `path.{name}` and no candidates. */
async function guardedPath(context: StageContext, name: string, run: PathTask): Promise<SearchCandidate[]> {
  const start = context.now();
  try {
    return await run();
  } catch (error: unknown) {
    context.degraded[`path.${name}`] = error instanceof Error ? error.message : String(error);
    return [];
  } finally {
    addTimes(context.pathTimings, { [name]: context.now() - start });
  }
}

function addTimes(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}
