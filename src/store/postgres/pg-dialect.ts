import type { JsonObject } from '../../model/json.js';
import type { MemorySource } from '../../model/memory.js';
import { memoryFromColumns } from '../memory-from-columns.js';
import { andThen, type Maybe } from '../sql/maybe-async.js';
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

/** Rows per multi-row INSERT statement. */
const INSERT_CHUNK = 1000;

/**
 * PostgreSQL's spelling of the engine's SQL (also PGlite's, and that of servers speaking the
 * protocol): `$n` placeholders, lists bound as one text[] (`= ANY(…)`), tags as text[] (all-of
 * with `@>`, bound as JSON and unpacked so that a multi-row insert can carry lists of any
 * length), JSON as jsonb, and sort keys in the "C" collation (byte order, like SQLite).
 */
export function createPgDialect(names: PgNames): SqlDialect {
  return {
    table: names.memories,
    historyTable: names.history,
    jobsTable: names.jobs,
    forUpdate: ' FOR UPDATE',
    skipLocked: ' FOR UPDATE SKIP LOCKED',
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
    json: (raw) => raw,
    lockKeys(sql, keys) {
      if (keys.length === 0) return undefined;
      // One statement, locks taken in the order of their 64-bit hashes: the same order in every
      // transaction, so two appends never deadlock on each other's keys.
      return andThen(
        sql.all(
          `SELECT count(pg_advisory_xact_lock(h)) AS n FROM (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest($1::text[]) AS k ORDER BY h) AS s`,
          [[...keys]],
        ),
        () => undefined,
      );
    },
    insertMany(sql, table, columns, rows) {
      if (rows.length === 0) return undefined;
      const names = columns.map((c) => c.name);
      const statement = `INSERT INTO ${table} (${names.join(', ')}) SELECT ${names.map((n, i) => (columns[i]?.kind === 'tags' ? `ARRAY(SELECT jsonb_array_elements_text(u.${n}))` : `u.${n}`)).join(', ')}
        FROM unnest(${columns.map((c, i) => `$${i + 1}::${PG_ARRAY_TYPES[c.kind]}`).join(', ')}) AS u(${names.join(', ')})`;
      const chunks: Array<unknown[][]> = [];
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        const chunk = rows.slice(start, start + INSERT_CHUNK);
        chunks.push(columns.map((_, i) => chunk.map((row) => row[i])));
      }
      return chunks.reduce<Maybe<unknown>>(
        (previous, params) => andThen(previous, () => sql.run(statement, params)),
        undefined,
      ) as Maybe<void>;
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
