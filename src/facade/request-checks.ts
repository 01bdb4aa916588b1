import type { WriteOptions } from '../model/api.js';
import { EngramError } from '../model/errors.js';
import { MEMORY_STATUSES } from '../model/memory-type.js';
import type { Scope } from '../model/scope.js';
import type { WriteContext } from '../store/memory-store.js';

/** Every status: the model check and re-embedding look at all of a partition's memories. */
export const ALL_STATUSES = [...MEMORY_STATUSES];

/** INVALID_INPUT unless `value` is absent or one of `allowed`. */
export function checkOneOf(value: unknown, allowed: readonly string[], field: string): void {
  if (value !== undefined && !allowed.includes(value as string)) {
    throw new EngramError('INVALID_INPUT', `${field} must be one of: ${allowed.join(', ')}`, { details: { field } });
  }
}

/** INVALID_INPUT unless `value` is absent or a finite number. */
export function checkFiniteNumber(value: unknown, field: string): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
    throw new EngramError('INVALID_INPUT', `${field} must be a finite number`, { details: { field } });
  }
}

/** The history context of a facade write: an API call, by the caller the options name. */
export function writeContext(operation: string, options: WriteOptions): WriteContext {
  return { cause: { type: 'api', operation }, caller: options.caller };
}

/** The key of a scope's (tenant, user) partition, where one embedding model holds. */
export function partitionKey(scope: Scope): string {
  return JSON.stringify([scope.tenant, scope.user ?? null]);
}
