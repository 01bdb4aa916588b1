import type { Scoped } from '../model/api.js';
import { EngramError } from '../model/errors.js';
import type { MemoryFilter } from '../model/memory-filter.js';
import { MEMORY_STATUSES, MEMORY_TYPES, type MemoryType } from '../model/memory-type.js';
import { validateScope } from '../model/validate.js';

/** The store filter of a request: its scope validated, its types and statuses checked against the known names. */
export function scopeFilter(request: Scoped & Omit<MemoryFilter, 'scope'>): MemoryFilter {
  const scope = validateScope(request?.scope);
  const check = <T extends string>(
    values: T[] | undefined,
    allowed: readonly string[],
    field: string,
  ): T[] | undefined => {
    if (values === undefined) return undefined;
    if (!Array.isArray(values) || values.some((v) => !allowed.includes(v))) {
      throw new EngramError('INVALID_INPUT', `${field} must be a list of: ${allowed.join(', ')}`, {
        details: { field },
      });
    }
    return values;
  };
  return {
    scope,
    types: check<MemoryType>(request.types, MEMORY_TYPES, 'types'),
    statuses: check(request.statuses, MEMORY_STATUSES, 'statuses'),
    tags: request.tags,
    key: request.key,
    ids: request.ids,
  };
}
