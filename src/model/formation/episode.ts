import type { Scope } from '../scope.js';

/** Roles a conversation turn may have. Anything else is rejected with `INVALID_INPUT`. */
export const TURN_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type TurnRole = (typeof TURN_ROLES)[number];

/**
 * How a turn reached Engram: wrapper capture, `remember(messages)`, or an explicit `add`.
 * Only an explicit add that names its own id or key is exempt from merging (see `isMergeable`).
 */
export const EPISODE_ORIGINS = ['capture', 'remember', 'add'] as const;
export type EpisodeOrigin = (typeof EPISODE_ORIGINS)[number];

/** One conversation turn as a caller hands it in (before validation). */
export interface TurnInput {
  role: TurnRole;
  text: string;
  /** Display name of who spoke, e.g. `Caroline`. @default null */
  speaker?: string | null | undefined;
  /** Conversation / session id. @default the scope's `session`, else null */
  session?: string | null | undefined;
  /** The caller's id of this message (e.g. a LoCoMo `dia_id`); makes a replayed write idempotent. @default null */
  messageId?: string | null | undefined;
  /** World time the turn was said (ISO-8601 or a Date). @default the clock's now */
  occurredAt?: string | Date | null | undefined;
}

/** A validated turn: every field present, times as ISO-8601 UTC. */
export interface NormalizedTurn {
  role: TurnRole;
  text: string;
  speaker: string | null;
  session: string | null;
  messageId: string | null;
  occurredAt: string;
}

/** One delivery of an episode's text: which call brought it, and when it was said and received. */
export interface EpisodeSource {
  origin: EpisodeOrigin;
  session: string | null;
  messageId: string | null;
  speaker: string | null;
  /** World time of this delivery. */
  occurredAt: string;
  /** System time it was stored. */
  receivedAt: string;
}

/**
 * A raw turn kept as evidence. Turns whose normalised text is equal within the same exact scope
 * share one episode: `count` says how often it was said, `sources` the latest deliveries.
 */
export interface Episode {
  id: string;
  scope: Scope;
  role: TurnRole;
  speaker: string | null;
  session: string | null;
  messageId: string | null;
  /** World time of the first delivery. */
  occurredAt: string;
  /** The text as first received (verbatim). */
  text: string;
  /** Versioned hash of the normalised text (see `turnTextKey`); unique per exact scope for mergeable rows. */
  textKey: string;
  /** Deliveries counted, including those whose source fell out of `sources`. */
  count: number;
  /** The most recent deliveries, oldest first, at most `MAX_EPISODE_SOURCES`. */
  sources: EpisodeSource[];
  /** False for an explicit add with its own id or key: never a merge target. */
  mergeable: boolean;
  /** System time of the first delivery. */
  createdAt: string;
  /** System time of the latest delivery. */
  updatedAt: string;
}

/** Deliveries kept per episode; `count` stays exact past it. */
export const MAX_EPISODE_SOURCES = 32;
