import type { RememberResult } from '../model/formation/formation-api.js';
import type { Scope } from '../model/scope.js';
import type { Extractor } from './extractor.js';
import type { EpisodeOrigin, NormalizedTurn } from './episode.js';
import type { EpisodePlan, EpisodeWrite } from './episode-merge.js';
import type { EpisodeStore, OperationVector } from './formation-store.js';
import type { HistoryCaller } from './history.js';
import { planWindows, type WindowTurn } from './plan-windows.js';
import { windowKey } from './window-key.js';
import type { NewFormationJob } from './work-queue.js';

/** How windows of new turns become jobs. */
export interface WindowJobOptions {
  extractor: Pick<Extractor, 'name' | 'version' | 'limits'>;
  timezoneOffsetMinutes: number;
  maxAttempts: number;
}

/** The turns of plans that bring something new to form (replays bring nothing), each episode once, in order. */
export function turnsToForm(plans: EpisodePlan[], turns: NormalizedTurn[]): WindowTurn[] {
  const seen = new Set<string>();
  const out: WindowTurn[] = [];
  plans.forEach((plan, i) => {
    const turn = turns[i];
    if (!turn || plan.action === 'unchanged' || seen.has(plan.episode.id)) return;
    seen.add(plan.episode.id);
    out.push({
      id: plan.episode.id,
      role: turn.role,
      speaker: turn.speaker,
      text: turn.text,
      occurredAt: turn.occurredAt,
      session: turn.session,
    });
  });
  return out;
}

/** One job per window of `turns` (consecutive turns of a session within the extractor's limits). */
export function windowJobs(turns: WindowTurn[], scope: Scope, options: WindowJobOptions): NewFormationJob[] {
  const windows = planWindows(turns, {
    scope,
    limits: options.extractor.limits,
    timezoneOffsetMinutes: options.timezoneOffsetMinutes,
  });
  return windows.map((window) => ({
    scope,
    idempotencyKey: windowKey(window, options.extractor),
    extractor: { name: options.extractor.name, version: options.extractor.version },
    episodeIds: window.turns.map((t) => t.id),
    session: window.session,
    timezoneOffsetMinutes: options.timezoneOffsetMinutes,
    maxAttempts: options.maxAttempts,
  }));
}

/**
 * Stores validated turns as episodes and, when `jobs` is given, enqueues the formation jobs of
 * their windows in the same transaction: resolves once both are durable, which is when the
 * caller may be told its turns are safe. A replayed message (same session and message id) is
 * recorded once and formed once. Extraction and consolidation happen later, in the worker.
 */
export async function storeTurns(
  episodes: EpisodeStore,
  turns: NormalizedTurn[],
  options: {
    scope: Scope;
    origin: EpisodeOrigin;
    at: string;
    jobs: WindowJobOptions | null;
    /** One per turn: written with the episodes that are inserted. */
    vectors?: OperationVector[] | undefined;
    caller?: HistoryCaller | undefined;
  },
): Promise<{ plans: EpisodePlan[]; jobs: number }> {
  const writes: EpisodeWrite[] = turns.map((turn, i) => ({
    scope: options.scope,
    turn,
    origin: options.origin,
    background: backgroundOf(turns, i),
  }));
  let jobs = 0;
  const jobOptions = options.jobs;
  const jobsFor =
    jobOptions === null
      ? undefined
      : (plans: EpisodePlan[]): NewFormationJob[] => {
          const planned = windowJobs(turnsToForm(plans, turns), options.scope, jobOptions);
          jobs = planned.length;
          return planned;
        };
  const plans = await episodes.appendEpisodes(writes, {
    at: options.at,
    jobsFor,
    vectors: options.vectors,
    cause: { type: 'api', operation: options.origin },
    caller: options.caller,
  });
  return { plans, jobs };
}

/** The text of the turn before `turns[i]` in the same session of this call (what it answers), or null. */
function backgroundOf(turns: readonly NormalizedTurn[], i: number): string | null {
  const previous = turns[i - 1];
  const turn = turns[i] as NormalizedTurn;
  return previous !== undefined && previous.session === turn.session ? previous.text : null;
}

/** The answer of `remember` for stored plans; `queued` when jobs were enqueued or the turns wait in a capture window. */
export function rememberResult(plans: EpisodePlan[], jobs: number, queued: boolean): RememberResult {
  return {
    turns: plans.map((p) => ({ id: p.episode.id, action: p.action, count: p.episode.count })),
    jobs,
    formation: queued ? 'queued' : 'episodes-only',
  };
}
