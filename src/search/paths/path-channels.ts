import { candidatePoolSize } from '../../recall/candidate-pool.js';
import { runChannels, type MergedCandidate } from '../channels/run-channels.js';
import type { ChannelContext } from '../channels/search-channel.js';
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

/**
 * Runs one path's channels in parallel inside `{scope, path types, activated}`, each asked for
 * the core recall's candidate pool (at least `2·k`). The full-text channel runs inside scope paths
 * only when the search asks for it; the keyword path is nothing else.
 */
export async function runPathChannels(spec: PathSpec, k: number, inputs: PathInputs): Promise<PathChannelRun> {
  const context: ChannelContext = {
    store: inputs.store,
    model: inputs.model,
    filter: { scope: inputs.scope, types: spec.types, statuses: ['activated'], validAt: inputs.validAt },
    goal: inputs.goal,
    queryTexts: inputs.queryTexts,
    queryVectors: inputs.queryVectors,
    limit: Math.max(2 * k, candidatePoolSize(k, Number.MAX_SAFE_INTEGER, true)),
    priority: inputs.priority,
    tokenize: inputs.profile.queryTerms,
    keywordTerms: inputs.keywordTerms,
  };
  const channels =
    spec.name === 'keyword' || inputs.fulltext ? spec.channels : spec.channels.filter((c) => c.name !== 'fulltext');
  const run = await runChannels(channels, context, inputs.now);
  const channelTimings: Record<string, number> = {};
  for (const [name, ms] of Object.entries(run.timings)) channelTimings[name] = ms ?? 0;
  const errors: Record<string, string> = {};
  for (const [name, message] of Object.entries(run.errors)) errors[`${spec.name}.${name}`] = message ?? '';
  return { candidates: [...run.candidates.values()], channelTimings, errors };
}
