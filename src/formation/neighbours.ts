import { MEMORY_TYPES, type MemoryType } from '../model/memory-type.js';
import type { Scope } from '../model/scope.js';
import type { Candidate } from './candidate.js';
import type { FormedMemory } from './temporal.js';

/** An existing memory near a candidate, with its cosine to the candidate's text when the finder has it. */
export interface Neighbour {
  memory: FormedMemory;
  /** Cosine of the memory's vector and the candidate text's (recall's `explanation.cosine`). */
  cosine?: number | undefined;
}

export interface NeighbourOptions {
  scope: Scope;
  /** @default 5 */
  limit: number;
  signal?: AbortSignal | undefined;
}

/**
 * Finds the existing memories a candidate is compared with. The caller backs it with Engram's
 * own recall over the candidate's text in its scope, returning only memories valid now
 * (superseded and archived ones excluded) and never the window's own episodes.
 */
export type NeighbourFinder = (candidate: Candidate, options: NeighbourOptions) => Promise<Neighbour[]>;

/** The types a neighbour search looks in: every type but `WorkingMemory` (episodes are evidence, not facts). */
export const NEIGHBOUR_TYPES: readonly MemoryType[] = MEMORY_TYPES.filter((t) => t !== 'WorkingMemory');
