import { DEFAULT_STATUSES, type MemoryFilter } from '../../model/memory-filter.js';
import { canonicalInstant } from '../instant.js';
import type { SlotFilter } from './vector-partition.js';

/**
 * A {@link MemoryFilter} as an in-memory predicate over cached rows, with the semantics of the
 * engine's `filterWhere` (the partition already fixes tenant, model and user), and a key that
 * identifies it (so a partition can reuse its matches). Null when nothing beyond the partition
 * needs checking. `coversValidAt` says when a `validAt` filter cannot drop a cached row (then it
 * is left out of the test and of the key, so searches at ever-new instants share their matches).
 */
export function filterPredicate(
  filter: MemoryFilter,
  partitionStatuses: ReadonlySet<string> | null,
  coversValidAt: ((at: string) => boolean) | null = null,
): SlotFilter | null {
  const statuses = new Set<string>(filter.statuses ?? DEFAULT_STATUSES);
  const types = filter.types === undefined ? null : new Set<string>(filter.types);
  const ids = filter.ids === undefined ? null : new Set(filter.ids);
  const tags = [...new Set(filter.tags ?? [])];
  const { agent, session, collection } = filter.scope;
  const key = filter.key;
  const at = filter.validAt === undefined ? undefined : canonicalInstant(filter.validAt);
  const validAt = at !== undefined && !(coversValidAt?.(at) ?? false) ? at : undefined;
  const statusesCovered = partitionStatuses !== null && [...partitionStatuses].every((s) => statuses.has(s));
  if (
    statusesCovered &&
    types === null &&
    ids === null &&
    tags.length === 0 &&
    agent === undefined &&
    session === undefined &&
    collection === undefined &&
    key === undefined &&
    validAt === undefined
  ) {
    return null;
  }
  const sorted = (values: Iterable<string> | null): string[] | null => (values === null ? null : [...values].sort());
  return {
    key: JSON.stringify([
      sorted(statuses),
      sorted(types),
      sorted(ids),
      sorted(tags),
      agent ?? null,
      session ?? null,
      collection ?? null,
      key ?? null,
      validAt ?? null,
    ]),
    reusable: ids === null && validAt === undefined,
    test: (id, meta) =>
      statuses.has(meta.status) &&
      (types === null || types.has(meta.type)) &&
      (ids === null || ids.has(id)) &&
      (agent === undefined || meta.agent === agent) &&
      (session === undefined || meta.session === session) &&
      (collection === undefined || meta.collection === collection) &&
      (key === undefined || meta.key === key) &&
      (validAt === undefined || (meta.validFrom <= validAt && (meta.validTo === null || meta.validTo > validAt))) &&
      tags.every((t) => meta.tags.includes(t)),
  };
}
