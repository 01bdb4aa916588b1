import type { EmbeddingInfo } from '../../model/memory.js';
import type { MemoryFilter } from '../../model/memory-filter.js';
import type { SlotFilter } from './vector-partition.js';

/** A SQL WHERE fragment over alias `m` and its positional parameters. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** Default statuses of every filter. */
export const DEFAULT_STATUSES = ['activated'] as const;

/**
 * Translates a {@link MemoryFilter} into a WHERE fragment, tenant first so the tenant-leading
 * indexes apply. Scope fields left out match any value; `statuses` defaults to ['activated'];
 * `tags` is all-of; an empty `types`/`statuses`/`ids` list matches nothing.
 */
export function filterSql(filter: MemoryFilter): SqlFragment {
  const parts: string[] = ['m.tenant = ?'];
  const params: unknown[] = [filter.scope.tenant];
  const scopeColumns = [
    ['user', 'm.user_id'],
    ['agent', 'm.agent_id'],
    ['session', 'm.session_id'],
    ['collection', 'm.collection'],
  ] as const;
  for (const [field, column] of scopeColumns) {
    const value = filter.scope[field];
    if (value !== undefined) {
      parts.push(`${column} = ?`);
      params.push(value);
    }
  }
  // One value is written as an equality, which the planner can match with an index.
  const oneOf = (column: string, values: readonly string[]): void => {
    if (values.length === 1) {
      parts.push(`${column} = ?`);
      params.push(values[0]);
    } else {
      parts.push(`${column} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(values));
    }
  };
  oneOf('m.status', filter.statuses ?? DEFAULT_STATUSES);
  if (filter.types !== undefined) oneOf('m.type', filter.types);
  if (filter.key !== undefined) {
    parts.push('m.key = ?');
    params.push(filter.key);
  }
  if (filter.ids !== undefined) {
    parts.push('m.id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.ids));
  }
  for (const tag of new Set(filter.tags ?? [])) {
    parts.push('m.pk IN (SELECT pk FROM memory_tags WHERE tag = ?)');
    params.push(tag);
  }
  return { sql: parts.join(' AND '), params };
}

/** Narrows a fragment to rows holding a vector of this embedding space (no-op without one). */
export function withSpace(fragment: SqlFragment, space: EmbeddingInfo | undefined): SqlFragment {
  if (space === undefined) return fragment;
  return {
    sql: `${fragment.sql} AND m.embed_model = ? AND m.embed_dim = ? AND m.vector IS NOT NULL`,
    params: [...fragment.params, space.model, space.dim],
  };
}

/**
 * The same filter as an in-memory predicate over cached rows (the partition already fixes
 * tenant, model and user), with a key that identifies it (so a partition can reuse its matches).
 * Returns null when nothing beyond the partition needs checking.
 */
export function filterPredicate(
  filter: MemoryFilter,
  partitionStatuses: ReadonlySet<string> | null,
): SlotFilter | null {
  const statuses = new Set<string>(filter.statuses ?? DEFAULT_STATUSES);
  const types = filter.types === undefined ? null : new Set<string>(filter.types);
  const ids = filter.ids === undefined ? null : new Set(filter.ids);
  const tags = [...new Set(filter.tags ?? [])];
  const { agent, session, collection } = filter.scope;
  const key = filter.key;
  const statusesCovered = partitionStatuses !== null && [...partitionStatuses].every((s) => statuses.has(s));
  if (
    statusesCovered &&
    types === null &&
    ids === null &&
    tags.length === 0 &&
    agent === undefined &&
    session === undefined &&
    collection === undefined &&
    key === undefined
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
    ]),
    test: (id, meta) =>
      statuses.has(meta.status) &&
      (types === null || types.has(meta.type)) &&
      (ids === null || ids.has(id)) &&
      (agent === undefined || meta.agent === agent) &&
      (session === undefined || meta.session === session) &&
      (collection === undefined || meta.collection === collection) &&
      (key === undefined || meta.key === key) &&
      tags.every((t) => meta.tags.includes(t)),
  };
}
