import { EngramError } from './errors.js';
import type { HitValidity } from './hit.js';
import type { Memory } from './memory.js';
import { validateDate } from './validate.js';
import type { ValidityOptions } from './validity-options.js';

/** The instant a recall or search is about, and the store's validity filter for it. */
export interface ResolvedValidity {
  /** ISO-8601 UTC. */
  at: string;
  /** `MemoryFilter.validAt`: the instant, or undefined when superseded memories are included. */
  validAt: string | undefined;
  includeSuperseded: boolean;
}

/** Checks `asOf` and `includeSuperseded` (INVALID_INPUT) and resolves them against the clock. */
export function resolveValidity(options: ValidityOptions, now: () => Date): ResolvedValidity {
  const asOf = validateDate(options.asOf, 'asOf');
  const include = options.includeSuperseded;
  if (include !== undefined && typeof include !== 'boolean') {
    throw new EngramError('INVALID_INPUT', 'includeSuperseded must be a boolean', {
      details: { field: 'includeSuperseded' },
    });
  }
  const at = asOf ?? now().toISOString();
  return { at, validAt: include === true ? undefined : at, includeSuperseded: include === true };
}

/** How a memory stands at `at` (ISO-8601): valid, superseded, ended, or not yet valid. */
export function validityAt(memory: Memory, at: string): HitValidity {
  const t = Date.parse(at);
  const from = Date.parse(memory.validFrom);
  const ended = memory.validTo !== null && Date.parse(memory.validTo) <= t;
  const state = from > t ? 'not-yet-valid' : ended ? (memory.supersededBy !== null ? 'superseded' : 'ended') : 'valid';
  return { state, at, validFrom: memory.validFrom, validTo: memory.validTo, supersededBy: memory.supersededBy };
}
