import type { JsonObject } from '../../model/json.js';
import type { MemorySource } from '../../model/memory.js';
import { memoryFromColumns } from '../memory-from-columns.js';
import { andThen, type Maybe } from '../sql/maybe-async.js';
import type { SqlQueries } from '../sql/query-runner.js';
import { SqlParams, type ColumnKind, type InsertColumn, type SqlDialect } from '../sql/sql-dialect.js';
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

/** Rows per multi-row INSERT statement over unnest(). */
const INSERT_CHUNK = 1000;
/** Bind parameters per `INSERT … VALUES` statement (PostgreSQL's limit is 65,535). */
const VALUES_PARAMETERS = 30_000;

/** How a bound or selected value of a column kind is read (PostgreSQL adds casts). */
function pgValueSql(kind: ColumnKind, reference: string): string {
  if (kind === 'tags') return `ARRAY(SELECT jsonb_array_elements_text(${reference}::jsonb))`;
  return kind === 'json' ? `${reference}::jsonb` : reference;
}

/** How multi-row inserts are written (see `PgTopology.batchInsert`). */
export type PgBatchInsert = 'unnest' | 'values';

function runChunks(sql: SqlQueries, statements: Array<{ text: string; params: unknown[] }>): Maybe<void> {
  return statements.reduce<Maybe<unknown>>(
    (previous, s) => andThen(previous, () => sql.run(s.text, s.params)),
    undefined,
  ) as Maybe<void>;
}

/** One statement per chunk over unnest()ed column arrays: one parameter per column (one server). */
function insertManyByUnnest(
  sql: SqlQueries,
  table: string,
  columns: readonly InsertColumn[],
  rows: readonly unknown[][],
): Maybe<void> {
  if (rows.length === 0) return undefined;
  const names = columns.map((c) => c.name);
  const text = `INSERT INTO ${table} (${names.join(', ')}) SELECT ${names.map((n, i) => (columns[i]?.kind === 'tags' ? `ARRAY(SELECT jsonb_array_elements_text(u.${n}))` : `u.${n}`)).join(', ')}
        FROM unnest(${columns.map((c, i) => `$${i + 1}::${PG_ARRAY_TYPES[c.kind]}`).join(', ')}) AS u(${names.join(', ')})`;
  const statements = [];
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows.slice(start, start + INSERT_CHUNK);
    statements.push({ text, params: columns.map((_, i) => chunk.map((row) => row[i])) });
  }
  return runChunks(sql, statements);
}

/**
 * One multi-row `INSERT … VALUES` per tenant and chunk (Citus: routed to the tenant's shard, a
 * duplicate key stays 23505). Tags are bound as text[] (no sub-select inside VALUES on Citus).
 */
function insertManyByValues(
  sql: SqlQueries,
  table: string,
  columns: readonly InsertColumn[],
  rows: readonly unknown[][],
): Maybe<void> {
  const tenantAt = columns.findIndex((c) => c.name === 'tenant');
  const byTenant = new Map<unknown, unknown[][]>();
  for (const row of rows) {
    const key = tenantAt < 0 ? null : row[tenantAt];
    const group = byTenant.get(key);
    if (group) group.push(row);
    else byTenant.set(key, [row]);
  }
  const chunk = Math.max(1, Math.floor(VALUES_PARAMETERS / Math.max(1, columns.length)));
  const statements = [];
  for (const group of byTenant.values()) {
    for (let start = 0; start < group.length; start += chunk) {
      const params: unknown[] = [];
      const bind = (value: unknown): string => `$${params.push(value)}`;
      const tuples = group.slice(start, start + chunk).map((row) => {
        const cells = columns.map((c, i) => {
          const value = row[i];
          if (c.kind !== 'tags') return pgValueSql(c.kind, bind(value));
          return `${bind(typeof value === 'string' ? (JSON.parse(value) as unknown) : value)}::text[]`;
        });
        return `(${cells.join(', ')})`;
      });
      statements.push({
        text: `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES ${tuples.join(', ')}`,
        params,
      });
    }
  }
  return runChunks(sql, statements);
}

/**
 * PostgreSQL's spelling of the engine's SQL (also PGlite's, and that of servers speaking the
 * protocol): `$n` placeholders, lists bound as one text[] (`= ANY(…)`), tags as text[] (all-of
 * with `@>`, bound as JSON and unpacked so that a multi-row insert can carry lists of any
 * length), JSON as jsonb, and sort keys in the "C" collation (byte order, like SQLite).
 */
export function createPgDialect(names: PgNames, batchInsert: PgBatchInsert = 'unnest'): SqlDialect {
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
    valueSql: pgValueSql,
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
    insertMany: (sql, table, columns, rows) =>
      batchInsert === 'values'
        ? insertManyByValues(sql, table, columns, rows)
        : insertManyByUnnest(sql, table, columns, rows),
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
