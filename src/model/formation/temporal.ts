import type { Memory } from '../memory.js';

/**
 * World-time validity of a memory (columns of the memories table on every backend): when the fact
 * became true and when it stopped, apart from when it was stored (`createdAt`, system time).
 */
export interface Validity {
  /** When it became true (ISO-8601 UTC). Null on rows from before formation: read as `statedAt ?? createdAt`. */
  validFrom: string | null;
  /** When it stopped being true (exclusive); null while it holds. */
  validTo: string | null;
  /** The memory that replaced it, when it was superseded. */
  supersededBy: string | null;
  /** Starts at 1; each update adds 1. Lets a write refuse to apply over a change it did not see. */
  version: number;
}

/** A memory as formation reads it (every `Memory` now carries its validity; kept as a name for formation's code). */
export type FormedMemory = Memory & Partial<Validity>;

/** When a memory became true: `validFrom`, else when it was stated, else when it was stored. */
export function validFromOf(memory: FormedMemory): string {
  return memory.validFrom ?? memory.statedAt ?? memory.createdAt;
}

/** True when the memory holds at `at` (ISO-8601): active, started at or before it, not ended by it. */
export function isValidAt(memory: FormedMemory, at: string): boolean {
  if (memory.status !== 'activated') return false;
  const t = Date.parse(at);
  if (Date.parse(validFromOf(memory)) > t) return false;
  return memory.validTo == null || Date.parse(memory.validTo) > t;
}

/** True when nothing has ended or replaced the memory (regardless of when it started). */
export function isCurrent(memory: FormedMemory): boolean {
  return memory.status === 'activated' && memory.validTo == null && memory.supersededBy == null;
}
