import type { Scope } from '../model/scope.js';
import type { Episode, EpisodeSource } from './episode.js';
import type { ExtractionWindow } from './extraction-window.js';
import type { FormationJob } from './work-queue.js';

/**
 * The delivery of an episode that a job's window stands for: the latest source of the job's
 * session received no later than the job was enqueued (a text said in several sessions is one
 * episode, but "yesterday" means the day before *this* saying). Falls back to the first delivery.
 */
function deliveryOf(episode: Episode, job: Pick<FormationJob, 'session' | 'createdAt'>): EpisodeSource | null {
  const enqueued = Date.parse(job.createdAt);
  let found: EpisodeSource | null = null;
  for (const source of episode.sources) {
    if (source.session !== job.session) continue;
    if (Number.isFinite(enqueued) && Date.parse(source.receivedAt) > enqueued) continue;
    found = source;
  }
  return found;
}

/**
 * The extraction window a queued job forms: its episodes in the job's order (an episode deleted
 * since is left out), each at the time and with the speaker of the delivery the job was enqueued for.
 */
export function windowOfJob(job: FormationJob, episodes: Episode[]): ExtractionWindow {
  const byId = new Map(episodes.map((e) => [e.id, e]));
  const seen = new Set<string>();
  const turns: ExtractionWindow['turns'] = [];
  for (const id of job.episodeIds) {
    const episode = byId.get(id);
    if (!episode || seen.has(id)) continue;
    seen.add(id);
    const delivery = deliveryOf(episode, job);
    turns.push({
      id,
      role: episode.role,
      speaker: delivery?.speaker ?? episode.speaker,
      text: episode.text,
      occurredAt: delivery?.occurredAt ?? episode.occurredAt,
    });
  }
  return { scope: job.scope, session: job.session, turns, timezoneOffsetMinutes: job.timezoneOffsetMinutes };
}

/**
 * Where a window's facts live: its scope without the session. A fact ("Ana lives in Berlin")
 * outlives the conversation it was said in, and is compared with the facts of every session of
 * the same user; the episodes it came from keep their session.
 */
export function factScope(scope: Scope): Scope {
  const out: Scope = { ...scope };
  delete out.session;
  return out;
}
