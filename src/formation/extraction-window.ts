import type { Scope } from '../model/scope.js';
import type { TurnRole } from './episode.js';

/** A turn as an extractor sees it: the episode's id, who spoke, what, and when (world time). */
export interface ExtractionTurn {
  /** The episode id; candidates cite turns by it. */
  id: string;
  role: TurnRole;
  speaker: string | null;
  text: string;
  /** ISO-8601 UTC. Relative dates in this turn resolve against it. */
  occurredAt: string;
}

/** Consecutive turns of one session that one extraction call covers. */
export interface ExtractionWindow {
  scope: Scope;
  session: string | null;
  turns: ExtractionTurn[];
  /** Offset of the conversation's local time from UTC in minutes, for "yesterday" and "next Friday". @default 0 */
  timezoneOffsetMinutes?: number | undefined;
}
