import type { MemoryType } from '../../../src/model/memory-type.js';
import { mergeChannelHits } from '../../../src/search/channels/run-channels.js';
import type { ChannelHit, SearchChannel } from '../../../src/search/channels/search-channel.js';
import { mergeCandidates } from '../../../src/search/paths/merge-candidates.js';
import { runInternetPath } from '../../../src/search/paths/internet-path.js';
import { loadCandidateRows } from '../../../src/search/paths/load-candidate-rows.js';
import { pathChannelContext, pathChannels, pathPoolSize } from '../../../src/search/paths/path-channels.js';
import type { PathInputs } from '../../../src/search/paths/path-inputs.js';
import { rankCandidates } from '../../../src/search/paths/rank-candidates.js';
import { runPath } from '../../../src/search/paths/run-path.js';
import type { SearchCandidate } from '../../../src/search/paths/search-candidate.js';
import type { PathSpec } from '../../../src/search/paths/search-paths.js';
import type { StageContext, StageQuery } from '../../../src/search/paths/stage-context.js';

type PathTask = () => Promise<SearchCandidate[]>;

/**
 * The retrieval stage written the slow, obvious way, as the reference the searcher's stage must
 * equal: every path ranked alone ({@link rankCandidates}: its fusion and reranker over its own
 * candidates), its candidates found by one `run` per channel. A channel that several paths use
 * (one with `runGroups`) is run once over their types together, at the largest pool any of them
 * asks for, and each hit goes to the paths of its type (read with `get`); a path left with fewer
 * than its k while that search was full runs the channel alone for its best k. Lexical scores are
 * relative to the best of each path's own list. Over a store that tells a hit's type neither with
 * the hit nor from its texts (`getTexts`), every path runs alone ({@link runPath}).
 *
 * One retrieval stage of the multi-path searcher: every path over every readable collection (the
 * internet path once, with the first), in parallel unless `sequential`. A failing path counts as
 * no candidates and is recorded in `degraded`. The lists are merged by id and each candidate is
 * stamped with the first stage that found it.
 */
export async function referenceRetrieveStage(
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
    let hits: Promise<ChannelHit[][][] | null> | undefined;
    const pathHits = (): Promise<ChannelHit[][][] | null> => (hits ??= splitChannelHits(context, inputs));
    context.paths.forEach((spec, p) =>
      tasks.push(() =>
        guardedPath(context, spec.name, () =>
          pathHits().then((all) =>
            all === null
              ? localPath(context, spec, inputs)
              : splitPath(context, spec, inputs, Promise.resolve(all[p] ?? [])),
          ),
        ),
      ),
    );
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

/** A path ranked alone over its share of the channels' hits (in its channel order). */
async function splitPath(
  context: StageContext,
  spec: PathSpec,
  inputs: PathInputs,
  hits: Promise<ChannelHit[][]>,
): Promise<SearchCandidate[]> {
  const lists = await hits;
  const channels = pathChannels(spec, inputs.fulltext);
  const merged = mergeChannelHits(channels.map((c, i) => ({ channel: c.name, hits: lists[i] ?? [] })));
  const candidates = [...merged.values()];
  if (candidates.length === 0) return [];
  const found = await loadCandidateRows(inputs.store, inputs.scope.tenant, candidates, inputs.queryVectors);
  const k = context.limits[spec.bucket];
  return rankCandidates(inputs, spec.name, found, k);
}

/**
 * Per path, per channel of the path: its hits, as the reference above defines them; null when a
 * shared search found a hit whose type the store tells neither with it nor from its texts.
 */
async function splitChannelHits(context: StageContext, inputs: PathInputs): Promise<ChannelHit[][][] | null> {
  const specs = context.paths;
  const used = specs.map((spec) => pathChannels(spec, inputs.fulltext));
  const out = used.map((channels) => channels.map((): ChannelHit[] => []));
  const byChannel = new Map<SearchChannel, number[]>();
  used.forEach((channels, p) => {
    for (const channel of channels) {
      if (channel.runGroups === undefined) continue;
      byChannel.set(channel, [...(byChannel.get(channel) ?? []), p]);
    }
  });
  const k = (p: number): number => context.limits[(specs[p] as PathSpec).bucket];
  const alone = (channel: SearchChannel, p: number, limit: number): Promise<ChannelHit[]> =>
    channel.run({ ...pathChannelContext(specs[p] as PathSpec, k(p), inputs), limit });
  for (const [p, channels] of used.entries()) {
    for (const [c, channel] of channels.entries()) {
      if (channel.runGroups === undefined) (out[p] as ChannelHit[][])[c] = await alone(channel, p, pathPoolSize(k(p)));
    }
  }
  for (const [channel, members] of byChannel) {
    const lists = new Map<number, ChannelHit[]>();
    if (members.length === 1) {
      const p = members[0] as number;
      lists.set(p, await alone(channel, p, pathPoolSize(k(p))));
    } else {
      const types = [...new Set(members.flatMap((p) => (specs[p] as PathSpec).types))];
      const limit = Math.max(...members.map((p) => pathPoolSize(k(p))));
      const base = pathChannelContext(specs[members[0] as number] as PathSpec, k(members[0] as number), inputs);
      const shared = await channel.run({ ...base, filter: { ...base.filter, types }, limit });
      if (inputs.store.getTexts === undefined && shared.some((h) => h.type === undefined && !h.memory)) return null;
      const typeOf = new Map<string, MemoryType>(
        (
          await inputs.store.get(
            inputs.scope.tenant,
            shared.map((h) => h.id),
          )
        ).map((m) => [m.id, m.type]),
      );
      for (const p of members) {
        const own = (specs[p] as PathSpec).types;
        let list = shared.filter((h) => own.includes(typeOf.get(h.id) as MemoryType));
        if (shared.length >= limit && list.length < k(p)) list = await alone(channel, p, k(p));
        else if (channel.relativeScores) {
          const best = Math.max(0, ...list.map((h) => h.score));
          list = list.map((h) => ({ ...h, score: best > 0 ? h.score / best : 0 }));
        }
        lists.set(p, list);
      }
    }
    for (const [p, list] of lists) (out[p] as ChannelHit[][])[(used[p] as SearchChannel[]).indexOf(channel)] = list;
  }
  return out;
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
