import type { JsonObject } from '../../model/json.js';
import type { MemorySource } from '../../model/memory.js';
import { memoryFromColumns } from '../memory-from-columns.js';
import { SqlParams, type ColumnKind, type SqlDialect } from '../sql/sql-dialect.js';
import { toEngramError } from './pg-errors.js';
import type { PgNames } from './pg-names.js';

/** The array type a column of this kind is bound as in a multi-row `unnest(…)` insert. */
export const PG_ARRAY_TYPES: Record<ColumnKind, string> = {
  text: 'text[]',
  int: 'int[]',
  json: 'jsonb[]',
  tags: 'jsonb[]',
  bytes: 'bytea[]',
};

/**
 * PostgreSQL's spelling of the engine's SQL (also PGlite's, and that of servers speaking the
 * protocol): `$n` placeholders, lists bound as one text[] (`= ANY(…)`), tags as text[] (all-of
 * with `@>`, bound as JSON and unpacked so that a multi-row insert can carry lists of any
 * length), JSON as jsonb, and sort keys in the "C" collation (byte order, like SQLite).
 */
export function createPgDialect(names: PgNames): SqlDialect {
  return {
    table: names.memories,
    countAll: 'count(*)::int',
    params: () => new SqlParams((n) => `$${n}`),
    anyOf: (column, values, params) => `${column} = ANY(${params.add([...values])}::text[])`,
    hasTags: (tags, params) => `m.tags @> ${params.add([...tags])}::text[]`,
    sortKey: (expression) => `${expression} COLLATE "C"`,
    encode(kind: ColumnKind, value: unknown) {
      if (value === null || value === undefined) return null;
      return kind === 'json' || kind === 'tags' ? JSON.stringify(value) : value;
    },
    valueSql(kind, reference) {
      if (kind === 'tags') return `ARRAY(SELECT jsonb_array_elements_text(${reference}::jsonb))`;
      return kind === 'json' ? `${reference}::jsonb` : reference;
    },
    toMemory(row) {
      return memoryFromColumns(row, {
        tags: row.tags as string[],
        sources: row.sources as MemorySource[],
        metadata: row.metadata as JsonObject,
      });
    },
    toEngramError,
  };
}
