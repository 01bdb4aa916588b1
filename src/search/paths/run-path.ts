import { loadCandidateRows } from './load-candidate-rows.js';
import { runPathChannels } from './path-channels.js';
import type { PathInputs } from './path-inputs.js';
import { rankCandidates } from './rank-candidates.js';
import type { SearchCandidate } from './search-candidate.js';
import type { PathSpec } from './search-paths.js';

/** One path's outcome. */
export interface PathOutcome {
  candidates: SearchCandidate[];
  channelTimings: Record<string, number>;
  errors: Record<string, string>;
}

/**
 * Runs one local path: its channels ({@link runPathChannels}), the rows and vectors they did not
 * return ({@link loadCandidateRows}), then {@link rankCandidates}.
 */
export async function runPath(spec: PathSpec, k: number, inputs: PathInputs): Promise<PathOutcome> {
  const { candidates, channelTimings, errors } = await runPathChannels(spec, k, inputs);
  if (candidates.length === 0) return { candidates: [], channelTimings, errors };
  const found = await loadCandidateRows(inputs.store, inputs.scope.tenant, candidates, inputs.queryVectors);
  return { candidates: await rankCandidates(inputs, spec.name, found, k), channelTimings, errors };
}
