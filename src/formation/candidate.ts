import type { MemoryType } from '../model/memory-type.js';
import type { FactKind } from './fact-kind.js';
import type { ResolvedDate } from './resolve-date.js';

/** Which extractor produced a candidate; `method` labels rule-based output as such. */
export interface ExtractorInfo {
  name: string;
  version: string;
  method: 'llm' | 'rule';
}

/** A memory an extractor proposes, with its evidence; consolidation decides what becomes of it. */
export interface Candidate {
  /** One self-contained statement; relative dates in it carry their resolved date, e.g. `next Friday (2026-03-13)`. */
  text: string;
  kind: FactKind;
  type: MemoryType;
  /**
   * A single-valued slot, lowercase dotted (`user.residence`, `user.allergy.peanuts`); two
   * current memories with the same key contradict each other. Null when none applies.
   */
  key: string | null;
  tags: string[];
  /** In [0, 1]. */
  confidence: number;
  /** Episode ids of the turns it came from (at least one, all from the window). */
  sourceTurnIds: string[];
  /** World time of the latest source turn. */
  statedAt: string;
  /** The date expression saying when it happened or became true, resolved in code; null when none. */
  when: ResolvedDate | null;
  /**
   * When it became true: `when.start` for a state that began at or before it was stated ("I moved
   * here last month"); `statedAt` for an event (the memory "X happens on D" holds from when it was
   * said), for a state announced for the future, and when there is no date.
   */
  validFrom: string;
  extractedBy: ExtractorInfo;
  /** Who said it: the one speaker of all its source turns, else null (kept as the fact's `metadata.speaker`, where recall reads it). @default null */
  speaker?: string | null | undefined;
}

/** Why part of an extractor's output was not used. */
export const DROP_REASONS = [
  'invalid-candidate',
  'unknown-turn',
  'no-source-turns',
  'unparseable-date',
  'impossible-date',
  'date-not-in-source',
  'low-confidence',
  'too-many-candidates',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** A dropped candidate, or a dropped part of a kept one (an unknown turn id, a bad date). */
export interface Dropped {
  reason: DropReason;
  detail: string;
  /** Position in the extractor's raw output. */
  index: number;
  /** True when the whole candidate was dropped, false when only the named part was. */
  candidateDropped: boolean;
}
