import { mergeChannelHits, type MergedCandidate } from '../channels/run-channels.js';
import type { ChannelHit, ChannelName, SearchChannel } from '../channels/search-channel.js';
import { pathChannelContext, pathChannels, pathPoolSize, scopeChannelContext } from './path-channels.js';
import type { PathInputs } from './path-inputs.js';
import type { PathSpec } from './search-paths.js';
import { runSharedGroups } from './shared-groups.js';

/** A local path of one stage, with its bucket's k. */
export interface StagePath {
  spec: PathSpec;
  k: number;
}

/** What the channels of a stage's paths found in one scope. */
export interface StageChannelRun {
  /** Per path (in the order given): its candidates merged by id, in the path's channel order. */
  candidates: MergedCandidate[][];
  /** Milliseconds per channel; a channel that answered every path at once counts once. */
  channelTimings: Record<string, number>;
  /** Failed channels, keyed `{path}.{channel}` for every path the failure emptied. */
  errors: Record<string, string>;
}

/** One store-facing unit of work: a channel for one path, or for several at once. */
interface ChannelJob {
  channel: SearchChannel;
  /** Indexes into the stage's paths. */
  paths: number[];
  run: () => Promise<ChannelHit[][]>;
}

/**
 * The channels of every path of a stage over one scope. A channel that can answer several paths
 * at once (`runGroups`: dense, BM25, full-text) runs once for all the paths that use it — one
 * shared search of their types, split by type (see {@link runSharedGroups}); the others (graph,
 * working) run per path. Jobs run in parallel unless `sequential`. A failing job
 * empties that channel for its paths and is recorded in `errors`.
 */
export async function runStageChannels(
  paths: readonly StagePath[],
  inputs: PathInputs,
  sequential: boolean,
): Promise<StageChannelRun> {
  const used = paths.map((p) => pathChannels(p.spec, inputs.fulltext));
  const jobs = channelJobs(paths, used, inputs);
  const hits = paths.map(() => new Map<ChannelName, ChannelHit[]>());
  const channelTimings: Record<string, number> = {};
  const errors: Record<string, string> = {};
  const execute = async (job: ChannelJob): Promise<void> => {
    const start = inputs.now();
    try {
      const lists = await job.run();
      job.paths.forEach((p, i) => hits[p]?.set(job.channel.name, lists[i] ?? []));
    } catch (error: unknown) {
      const message = error instanceof Error ? error.message : String(error);
      for (const p of job.paths) errors[`${paths[p]?.spec.name}.${job.channel.name}`] = message;
    } finally {
      const name = job.channel.name;
      channelTimings[name] = (channelTimings[name] ?? 0) + (inputs.now() - start);
    }
  };
  if (sequential) for (const job of jobs) await execute(job);
  else await Promise.all(jobs.map(execute));
  const candidates = used.map((channels, p) => {
    const found = hits[p] as Map<ChannelName, ChannelHit[]>;
    const merged = mergeChannelHits(channels.map((c) => ({ channel: c.name, hits: found.get(c.name) ?? [] })));
    return [...merged.values()];
  });
  return { candidates, channelTimings, errors };
}

/** One grouped job per channel that has `runGroups`, in first-use order; one job per path for the rest. */
function channelJobs(paths: readonly StagePath[], used: readonly SearchChannel[][], inputs: PathInputs): ChannelJob[] {
  const grouped = new Map<SearchChannel, number[]>();
  const jobs: ChannelJob[] = [];
  used.forEach((channels, p) => {
    const path = paths[p] as StagePath;
    for (const channel of channels) {
      if (channel.runGroups === undefined) {
        const context = pathChannelContext(path.spec, path.k, inputs);
        jobs.push({ channel, paths: [p], run: async () => [await channel.run(context)] });
        continue;
      }
      let members = grouped.get(channel);
      if (members === undefined) {
        grouped.set(channel, (members = []));
        jobs.push({ channel, paths: members, run: () => runGrouped(channel, members as number[]) });
      }
      members.push(p);
    }
  });
  const scope = scopeChannelContext(inputs);
  function runGrouped(channel: SearchChannel, members: readonly number[]): Promise<ChannelHit[][]> {
    const groups = members.map((p) => {
      const path = paths[p] as StagePath;
      return { types: path.spec.types, limit: pathPoolSize(path.k), floor: path.k };
    });
    const grouped = channel as SearchChannel & Required<Pick<SearchChannel, 'runGroups'>>;
    return runSharedGroups(grouped, scope, groups);
  }
  return jobs;
}
