import type { Scope } from '../scope.js';
import { SCOPE_FIELDS } from '../scope.js';
import {
  MAX_EPISODE_SOURCES,
  type Episode,
  type EpisodeOrigin,
  type EpisodeSource,
  type NormalizedTurn,
} from './episode.js';
import { turnTextKey } from './normalize-turn-text.js';

/** One turn to store as an episode. */
export interface EpisodeWrite {
  scope: Scope;
  turn: NormalizedTurn;
  origin: EpisodeOrigin;
  /** An explicit add's own id. */
  id?: string | undefined;
  /** An explicit add's own key. */
  key?: string | null | undefined;
  /**
   * What the turn answers: the turn before it in the same conversation, stored as the row's
   * `background` (recall context, as the importers set it). A merge keeps the row's first one.
   * @default null
   */
  background?: string | null | undefined;
}

/** What storing one {@link EpisodeWrite} does. */
export type EpisodePlan =
  /** A new row. */
  | { action: 'insert'; episode: Episode }
  /** The text is already there: one more source and count on that row. */
  | { action: 'merge'; episode: Episode; source: EpisodeSource }
  /** The same message (session + message id) was already recorded: a replay, nothing changes. */
  | { action: 'unchanged'; episode: Episode };

/** Clock and id generator, injected. */
export interface EpisodeDeps {
  now: () => Date;
  newId: () => string;
}

/**
 * The canonical exact-scope string episodes merge within (every scope field, absent as null):
 * `{tenant: 't', user: 'u'}` and `{tenant: 't'}` are different scopes, so two users never share
 * an episode.
 */
export function episodeScopeKey(scope: Scope): string {
  return JSON.stringify(SCOPE_FIELDS.map((field) => scope[field] ?? null));
}

/**
 * Captured and remembered turns merge; so does an explicit add without its own id or key. An add
 * that names an id or a key asked for a row of its own and gets one.
 */
export function isMergeable(write: Pick<EpisodeWrite, 'origin' | 'id' | 'key'>): boolean {
  return write.origin !== 'add' || (write.id === undefined && (write.key ?? null) === null);
}

function sourceOf(write: EpisodeWrite, receivedAt: string): EpisodeSource {
  const { turn } = write;
  return {
    origin: write.origin,
    session: turn.session,
    messageId: turn.messageId,
    speaker: turn.speaker,
    occurredAt: turn.occurredAt,
    receivedAt,
  };
}

function isReplay(episode: Episode, source: EpisodeSource): boolean {
  if (source.messageId === null) return false;
  if (episode.messageId === source.messageId && episode.session === source.session) return true;
  return episode.sources.some((s) => s.messageId === source.messageId && s.session === source.session);
}

/**
 * The merge rule for one write, given the mergeable episode with the same text key in the same
 * exact scope (or null). Pure: the store runs it inside the transaction that looked `existing` up.
 */
export function planEpisodeWrite(write: EpisodeWrite, existing: Episode | null, deps: EpisodeDeps): EpisodePlan {
  const at = deps.now().toISOString();
  const source = sourceOf(write, at);
  const mergeable = isMergeable(write);
  if (mergeable && existing !== null) {
    if (isReplay(existing, source)) return { action: 'unchanged', episode: existing };
    const sources = [...existing.sources, source].slice(-MAX_EPISODE_SOURCES);
    return { action: 'merge', source, episode: { ...existing, count: existing.count + 1, sources, updatedAt: at } };
  }
  const { turn } = write;
  const episode: Episode = {
    id: write.id ?? deps.newId(),
    scope: write.scope,
    role: turn.role,
    speaker: turn.speaker,
    session: turn.session,
    messageId: turn.messageId,
    occurredAt: turn.occurredAt,
    text: turn.text,
    textKey: turnTextKey(turn.text),
    count: 1,
    sources: [source],
    mergeable,
    createdAt: at,
    updatedAt: at,
  };
  return { action: 'insert', episode };
}

/**
 * {@link planEpisodeWrite} over a batch: a text repeated inside the batch merges into the row the
 * batch itself creates. `lookup` returns the stored mergeable episode for (exact scope, text key).
 * Returns one plan per write, in order; the last plan of a row holds its final state.
 */
export function planEpisodeWrites(
  writes: EpisodeWrite[],
  lookup: (scopeKey: string, textKey: string) => Episode | null,
  deps: EpisodeDeps,
): EpisodePlan[] {
  const pending = new Map<string, Episode>();
  return writes.map((write) => {
    const scopeKey = episodeScopeKey(write.scope);
    const textKey = turnTextKey(write.turn.text);
    const slot = `${scopeKey}\u0000${textKey}`;
    const existing = isMergeable(write) ? (pending.get(slot) ?? lookup(scopeKey, textKey)) : null;
    const plan = planEpisodeWrite(write, existing, deps);
    if (plan.episode.mergeable) pending.set(slot, plan.episode);
    return plan;
  });
}
