import type { EmbeddingInfo } from '../../model/memory.js';
import { DEFAULT_STATUSES, type MemoryFilter } from '../../model/memory-filter.js';
import { canonicalInstant } from '../instant.js';
import type { SqlDialect, SqlParams } from './sql-dialect.js';

/**
 * When a row became true. Rows the formation migration could not read a time from keep
 * `valid_from` null and read as `statedAt ?? createdAt`, in SQL as in `memoryFromColumns`.
 */
export const VALID_FROM_SQL = 'coalesce(m.valid_from, m.stated_at, m.created_at)';

const SCOPE_COLUMNS = [
  ['user', 'm.user_id'],
  ['agent', 'm.agent_id'],
  ['session', 'm.session_id'],
  ['collection', 'm.collection'],
] as const;

/**
 * A {@link MemoryFilter} as a WHERE condition over alias `m`, tenant first (every index leads with
 * it, and a distributed table is routed by it). Scope fields left out match any value; `statuses`
 * defaults to {@link DEFAULT_STATUSES}; `tags` is all-of; an empty `types` / `statuses` / `ids`
 * list matches nothing; `validAt` keeps rows valid at that instant (start inclusive, end
 * exclusive), compared as canonical ISO text like every stored validity.
 */
export function filterWhere(filter: MemoryFilter, dialect: SqlDialect, params: SqlParams): string {
  const parts = [`m.tenant = ${params.add(filter.scope.tenant)}`];
  for (const [field, column] of SCOPE_COLUMNS) {
    const value = filter.scope[field];
    if (value !== undefined) parts.push(`${column} = ${params.add(value)}`);
  }
  parts.push(dialect.anyOf('m.status', filter.statuses ?? DEFAULT_STATUSES, params));
  if (filter.types !== undefined) parts.push(dialect.anyOf('m.type', filter.types, params));
  if (filter.key !== undefined) parts.push(`m.key = ${params.add(filter.key)}`);
  if (filter.ids !== undefined) parts.push(dialect.anyOf('m.id', filter.ids, params));
  const tags = [...new Set(filter.tags ?? [])];
  if (tags.length > 0) parts.push(dialect.hasTags(tags, params));
  if (filter.validAt !== undefined) {
    const at = canonicalInstant(filter.validAt);
    parts.push(`${VALID_FROM_SQL} <= ${params.add(at)} AND (m.valid_to IS NULL OR m.valid_to > ${params.add(at)})`);
  }
  return parts.join(' AND ');
}

/** Rows holding a vector of this embedding model and dimension (no condition without one). */
export function spaceWhere(space: EmbeddingInfo | undefined, params: SqlParams): string {
  if (space === undefined) return '';
  return ` AND m.embed_model = ${params.add(space.model)} AND m.embed_dim = ${params.add(space.dim)} AND m.vector IS NOT NULL`;
}
