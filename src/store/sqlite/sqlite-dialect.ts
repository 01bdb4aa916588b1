import type { JsonObject } from '../../model/json.js';
import type { MemorySource } from '../../model/memory.js';
import { memoryFromColumns } from '../memory-from-columns.js';
import { SqlParams, type ColumnKind, type SqlDialect } from '../sql/sql-dialect.js';
import { toEngramError } from './sqlite-errors.js';

function parseJson<T>(raw: unknown, fallback: T): T {
  if (typeof raw !== 'string') return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

/**
 * SQLite's spelling of the engine's SQL: `?` placeholders, lists bound as one JSON array and
 * read with `json_each` (one value as a plain equality, which the planner matches with an index),
 * tags and JSON stored as JSON text, all-of tags through the `memory_tags` table, and the BINARY
 * collation (byte order, like PostgreSQL's "C").
 */
export const sqliteDialect: SqlDialect = {
  table: 'memories',
  historyTable: 'memory_history',
  jobsTable: 'formation_jobs',
  forUpdate: '',
  skipLocked: '',
  countAll: 'count(*)',
  rowKey: 'm.pk',
  params: () => new SqlParams(() => '?'),
  anyOf(column, values, params) {
    if (values.length === 1) return `${column} = ${params.add(values[0])}`;
    return `${column} IN (SELECT value FROM json_each(${params.add(JSON.stringify(values))}))`;
  },
  hasTags(tags, params) {
    return tags.map((tag) => `m.pk IN (SELECT pk FROM memory_tags WHERE tag = ${params.add(tag)})`).join(' AND ');
  },
  sortKey: (expression) => expression,
  encode(kind: ColumnKind, value: unknown) {
    if (value === null || value === undefined) return null;
    return kind === 'json' || kind === 'tags' ? JSON.stringify(value) : value;
  },
  valueSql: (_kind, reference) => reference,
  json: (raw) => (typeof raw === 'string' ? parseJson<unknown>(raw, null) : raw),
  // BEGIN IMMEDIATE already makes every write transaction the only one.
  lockKeys: () => undefined,
  insertMany(sql, table, columns, rows) {
    const statement = `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    for (const row of rows) sql.run(statement, row);
  },
  toMemory(row) {
    return memoryFromColumns(row, {
      tags: parseJson<string[]>(row.tags, []),
      sources: parseJson<MemorySource[]>(row.sources, []),
      metadata: parseJson<JsonObject>(row.metadata, {}),
    });
  },
  toEngramError,
};
