import { candidatePoolSize } from '../../recall/candidate-pool.js';
import { runChannels, type MergedCandidate } from '../channels/run-channels.js';
import type { ChannelContext, SearchChannel } from '../channels/search-channel.js';
import type { PathInputs } from './path-inputs.js';
import type { PathSpec } from './search-paths.js';

/** What a path's channels found, merged by id, with their timings and failures. */
export interface PathChannelRun {
  candidates: MergedCandidate[];
  /** Milliseconds per channel. */
  channelTimings: Record<string, number>;
  /** Failed channels, keyed `{path}.{channel}`. */
  errors: Record<string, string>;
}

/** Rows each channel of a path with bucket size `k` returns: the core recall's candidate pool, at least `2·k`. */
export function pathPoolSize(k: number): number {
  return Math.max(2 * k, candidatePoolSize(k, Number.MAX_SAFE_INTEGER, true));
}

/** The channels a path runs: full-text inside scope paths only when the search asks for it; the keyword path is nothing else. */
export function pathChannels(spec: PathSpec, fulltext: boolean): SearchChannel[] {
  return spec.name === 'keyword' || fulltext ? spec.channels : spec.channels.filter((c) => c.name !== 'fulltext');
}

/** The channel context of a stage's scope (`types` unset, `limit` 0: a path sets both, see {@link pathChannelContext}). */
export function scopeChannelContext(inputs: PathInputs): ChannelContext {
  return {
    store: inputs.store,
    model: inputs.model,
    filter: { scope: inputs.scope, statuses: ['activated'], validAt: inputs.validAt },
    goal: inputs.goal,
    queryTexts: inputs.queryTexts,
    queryVectors: inputs.queryVectors,
    limit: 0,
    priority: inputs.priority,
    tokenize: inputs.profile.queryTerms,
    keywordTerms: inputs.keywordTerms,
    analyzer: inputs.profile.analyzer?.name,
  };
}

/** One path's channel context: `{scope, path types, activated}` and the path's pool size. */
export function pathChannelContext(spec: PathSpec, k: number, inputs: PathInputs): ChannelContext {
  const scope = scopeChannelContext(inputs);
  return { ...scope, filter: { ...scope.filter, types: spec.types }, limit: pathPoolSize(k) };
}

/**
 * Runs one path's channels on their own, in parallel, inside `{scope, path types, activated}`,
 * each asked for the path's pool ({@link pathPoolSize}). The searcher runs the channels of every
 * path of a stage together instead (see `runStageChannels`); this is one path alone.
 */
export async function runPathChannels(spec: PathSpec, k: number, inputs: PathInputs): Promise<PathChannelRun> {
  const run = await runChannels(pathChannels(spec, inputs.fulltext), pathChannelContext(spec, k, inputs), inputs.now);
  const channelTimings: Record<string, number> = {};
  for (const [name, ms] of Object.entries(run.timings)) channelTimings[name] = ms ?? 0;
  const errors: Record<string, string> = {};
  for (const [name, message] of Object.entries(run.errors)) errors[`${spec.name}.${name}`] = message ?? '';
  return { candidates: [...run.candidates.values()], channelTimings, errors };
}
