import type { MergedCandidate } from '../channels/run-channels.js';
import { runInternetPath } from './internet-path.js';
import { mergeCandidates } from './merge-candidates.js';
import type { PathInputs } from './path-inputs.js';
import { noopReranker } from '../rank/noop-reranker.js';
import { rerankPool } from './rank-candidates.js';
import type { SearchCandidate } from './search-candidate.js';
import { runStageChannels, type StagePath } from './stage-channels.js';
import type { StageContext, StageQuery } from './stage-context.js';
import { rankStagePools, type PathPool } from './stage-pools.js';

/**
 * One retrieval stage of the multi-path searcher: every path over every readable collection, and
 * the internet path once (with the first collection), as one pipeline whose result is the
 * per-path searcher's: each collection's channels answer all its paths together (one store pass
 * per channel, split by the paths' types), every path pool is ranked with rows read once for the
 * whole stage, then each path's reranker runs — all in parallel with the web search unless
 * `sequential`. A failing path counts as no candidates and is recorded in `degraded`. The lists
 * are merged by id in collection then path order and each candidate is stamped with the first
 * stage that found it.
 */
export async function retrieveStage(
  context: StageContext,
  query: StageQuery,
  stage: number,
): Promise<SearchCandidate[]> {
  const latency: Record<string, number> = {};
  const timed = stageTimer(context, latency);
  const web = context.web;
  const webPath = (): Promise<SearchCandidate[]> =>
    web === null
      ? Promise.resolve([])
      : timed('internet', () => {
          const inputs = pathInputs(context, query, context.collections[0] ?? null);
          return runInternetPath(web, context.topK, inputs, context.degraded);
        });
  let local: SearchCandidate[][][];
  let webList: SearchCandidate[];
  if (context.sequential) {
    local = await localLists(context, query, timed);
    webList = await webPath();
  } else {
    // The web request goes out first: a store that answers inline would otherwise hold it back.
    const webPending = webPath();
    [local, webList] = await Promise.all([localLists(context, query, timed), webPending]);
  }
  addTimes(context.pathTimings, latency);
  const lists = local.flatMap((paths, i) => (i === 0 && web !== null ? [...paths, webList] : paths));
  const merged = mergeCandidates(lists);
  for (const c of merged) c.stage ??= stage;
  return merged;
}

/** Runs a path's last step, guarded, recording its latency within the stage; `mark` records a path that had nothing to do. */
interface PathTimer {
  (name: string, run: () => Promise<SearchCandidate[]>): Promise<SearchCandidate[]>;
  mark(name: string): void;
}

/**
 * A path's last step, guarded: a path that throws is degraded to `path.{name}` with no
 * candidates. Its time is its latency from the stage's start (the largest over collections).
 */
function stageTimer(context: StageContext, latency: Record<string, number>): PathTimer {
  const start = context.now();
  const mark = (name: string): void => void (latency[name] = Math.max(latency[name] ?? 0, context.now() - start));
  const timed = async (name: string, run: () => Promise<SearchCandidate[]>): Promise<SearchCandidate[]> => {
    try {
      return await run();
    } catch (error: unknown) {
      context.degraded[`path.${name}`] = error instanceof Error ? error.message : String(error);
      return [];
    } finally {
      mark(name);
    }
  };
  return Object.assign(timed, { mark });
}

/** Per collection, per path: the path's reranked candidates (empty when it found nothing or failed). */
async function localLists(context: StageContext, query: StageQuery, timed: PathTimer): Promise<SearchCandidate[][][]> {
  const paths: StagePath[] = context.paths.map((spec) => ({ spec, k: context.limits[spec.bucket] }));
  const inputs = context.collections.map((c) => pathInputs(context, query, c));
  const lists = inputs.map(() => paths.map((): SearchCandidate[] => []));
  const pools = await stagePools(context, paths, inputs);
  const ranked = await rankedPools(context, query, pools);
  for (const { spec } of paths) timed.mark(spec.name);
  if (ranked !== null) {
    await each(context.sequential, pools, async (pool, i) => {
      const [c, p] = pool.at;
      const reranked = await timed(pool.path.spec.name, () =>
        rerankPool(inputs[c] as PathInputs, ranked[i] ?? [], pool.path.k),
      );
      (lists[c] as SearchCandidate[][])[p] = reranked;
    });
  }
  return lists;
}

/** Every collection's channels for all paths; the pools of the paths that found something. */
async function stagePools(
  context: StageContext,
  paths: readonly StagePath[],
  inputs: readonly PathInputs[],
): Promise<Array<PathPool & { at: [number, number] }>> {
  const pools: Array<PathPool & { at: [number, number] }> = [];
  if (paths.length === 0) return pools;
  const runs = await each(context.storeInOrder, inputs, (i) => runStageChannels(paths, i, context.storeInOrder));
  runs.forEach((run, c) => {
    addTimes(context.channelTimings, run.channelTimings);
    Object.assign(context.degraded, run.errors);
    run.candidates.forEach((entries: MergedCandidate[], p) => {
      const collection = context.collections[c] ?? null;
      const path = paths[p] as StagePath;
      // `noop` keeps the fusion's order and cuts at k: the rest of the 2·k pool is never read.
      const keep = context.reranker === noopReranker ? path.k : 2 * path.k;
      if (entries.length > 0) pools.push({ path, collection, entries, keep, at: [c, p] });
    });
  });
  return pools;
}

/** The stage's pools ranked; on a store failure every pool's path is degraded and null is returned. */
async function rankedPools(
  context: StageContext,
  query: StageQuery,
  pools: readonly PathPool[],
): Promise<SearchCandidate[][] | null> {
  if (pools.length === 0) return [];
  try {
    return await rankStagePools(pools, {
      store: context.store,
      model: context.model,
      scope: { ...context.scope, collection: undefined },
      goal: query.goal,
      queryVectors: query.queryVectors,
      profile: context.profile,
      weights: context.weights,
      documents: context.documents,
    });
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message : String(error);
    for (const pool of pools) context.degraded[`path.${pool.path.spec.name}`] = message;
    return null;
  }
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

/** Runs `fn` over the items in parallel, or one after another. */
async function each<T, R>(
  sequential: boolean,
  items: readonly T[],
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  if (!sequential) return Promise.all(items.map(fn));
  const out: R[] = [];
  for (let i = 0; i < items.length; i++) out.push(await fn(items[i] as T, i));
  return out;
}

function addTimes(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}
