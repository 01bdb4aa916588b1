import type { Memory } from '../../model/memory.js';
import type { TermDocument } from '../../text/term-document.js';
import type { ChannelContext, ChannelHit, ChannelName, SearchChannel } from './search-channel.js';

/** Candidates of one scope, merged by id, with every channel's score kept. */
export interface MergedCandidate {
  id: string;
  /** Score per channel that found it (plus sub-scores such as `dense.priority`). */
  channels: Record<string, number>;
  memory?: Memory | undefined;
  /** The memory's last update, when a channel reported it. */
  updatedAt?: string | undefined;
  /** The memory's document, when a channel's store brought it (see {@link ChannelHit.document}). */
  document?: TermDocument | undefined;
  /** See {@link ChannelHit.storedCosine}. */
  storedCosine?: number | undefined;
}

/** What {@link runChannels} returns. */
export interface ChannelRun {
  candidates: Map<string, MergedCandidate>;
  /** Milliseconds per channel. */
  timings: Partial<Record<ChannelName, number>>;
  /** Channels that failed (message), skipped without failing the search. */
  errors: Partial<Record<ChannelName, string>>;
}

/**
 * Merges channels' hits by id, in the order given, keeping every channel's best score, the
 * sub-scores, and the first memory and last-update time a channel brought.
 */
export function mergeChannelHits(
  results: ReadonlyArray<{ channel: ChannelName; hits: readonly ChannelHit[] }>,
): Map<string, MergedCandidate> {
  const candidates = new Map<string, MergedCandidate>();
  for (const { channel, hits } of results) {
    for (const hit of hits) {
      const entry = candidates.get(hit.id);
      if (entry === undefined) {
        const channels: Record<string, number> = {};
        channels[channel] = hit.score;
        if (hit.extra) for (const k in hit.extra) channels[k] = hit.extra[k] as number;
        const { id, memory, updatedAt, document, storedCosine } = hit;
        candidates.set(id, { id, channels, memory, updatedAt, document, storedCosine });
        continue;
      }
      entry.channels[channel] = Math.max(entry.channels[channel] ?? -Infinity, hit.score);
      if (hit.extra) for (const k in hit.extra) entry.channels[k] = hit.extra[k] as number;
      if (hit.memory && !entry.memory) entry.memory = hit.memory;
      if (hit.updatedAt !== undefined && entry.updatedAt === undefined) entry.updatedAt = hit.updatedAt;
      entry.document ??= hit.document;
      entry.storedCosine ??= hit.storedCosine;
    }
  }
  return candidates;
}

/**
 * Runs the channels in parallel and merges their hits by id, keeping every channel's score.
 * A failing channel is recorded in `errors` and does not fail the others.
 */
export async function runChannels(
  channels: readonly SearchChannel[],
  context: ChannelContext,
  now: () => number = () => performance.now(),
): Promise<ChannelRun> {
  const timings: ChannelRun['timings'] = {};
  const errors: ChannelRun['errors'] = {};
  const results = await Promise.all(
    channels.map(async (channel) => {
      const start = now();
      try {
        return { channel: channel.name, hits: await channel.run(context) };
      } catch (error: unknown) {
        errors[channel.name] = error instanceof Error ? error.message : String(error);
        return { channel: channel.name, hits: [] };
      } finally {
        timings[channel.name] = now() - start;
      }
    }),
  );
  return { candidates: mergeChannelHits(results), timings, errors };
}
