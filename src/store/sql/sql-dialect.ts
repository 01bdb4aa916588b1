import type { EngramError } from '../../model/errors.js';
import type { Memory } from '../../model/memory.js';
import type { MemoryColumns } from '../memory-from-columns.js';
import type { Maybe } from './maybe-async.js';
import type { SqlQueries } from './query-runner.js';

/**
 * How a stored field is encoded: text and integers as themselves, JSON objects and arrays as
 * JSON (text in SQLite, jsonb in PostgreSQL), tags as a list (JSON text beside a tag table in
 * SQLite, text[] in PostgreSQL), vectors as little-endian float32 bytes.
 */
export type ColumnKind = 'text' | 'int' | 'json' | 'tags' | 'bytes';

/** Bound parameters of one statement, numbered in the order they are added. */
export class SqlParams {
  readonly values: unknown[] = [];

  constructor(private readonly placeholder: (index: number) => string) {}

  /** Binds `value` and returns its placeholder (`?` or `$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return this.placeholder(this.values.length);
  }
}

/** A column of a multi-row insert ({@link SqlDialect.insertMany}). */
export interface InsertColumn {
  name: string;
  kind: ColumnKind;
}

/**
 * What differs between the SQL engines the store runs on. Everything else (filters, patches,
 * pages, stats, validation, the row-to-memory mapping) is written once in `src/store/sql/`.
 * All SQL the engine writes uses the alias `m` for the memories table.
 */
export interface SqlDialect {
  /** The memories table as written in FROM (qualified and quoted as the engine needs). */
  readonly table: string;
  /** The history log table (one row per change to a memory). */
  readonly historyTable: string;
  /** The formation work queue table. */
  readonly jobsTable: string;
  /** Appended to a SELECT inside a write transaction to lock its rows (PostgreSQL); SQLite's writer already holds the database. */
  readonly forUpdate: string;
  /** {@link forUpdate}, skipping rows another transaction holds (PostgreSQL `FOR UPDATE SKIP LOCKED`). */
  readonly skipLocked: string;
  /** `count(*)` as an expression the driver returns as a JS number. */
  readonly countAll: string;
  /**
   * An integer column over alias `m` that the backend's in-memory caches know rows by (SQLite's
   * `m.pk`), read beside ids where those caches answer; absent where it keeps none.
   */
  readonly rowKey?: string | undefined;
  /** New parameters for one statement. */
  params(): SqlParams;
  /** `column` equals one of `values` (none: matches nothing). */
  anyOf(column: string, values: readonly string[], params: SqlParams): string;
  /** The row carries every one of `tags` (at least one tag given). */
  hasTags(tags: readonly string[], params: SqlParams): string;
  /** A sort or keyset expression compared byte by byte (ids and ISO timestamps sort alike everywhere). */
  sortKey(expression: string): string;
  /** `value` as bound for a column of this kind. */
  encode(kind: ColumnKind, value: unknown): unknown;
  /** The SQL reading a bound or selected value of this kind (PostgreSQL adds casts). */
  valueSql(kind: ColumnKind, reference: string): string;
  /** A selected JSON column as its value (SQLite selects text, PostgreSQL a decoded jsonb). */
  json(raw: unknown): unknown;
  /**
   * Serialises transactions that touch the same keys until they end (PostgreSQL: transaction-level
   * advisory locks, taken in sorted order; SQLite: nothing, its one writer already does).
   */
  lockKeys(sql: SqlQueries, keys: readonly string[]): Maybe<void>;
  /** Inserts rows of these columns (values already encoded) in as few statements as the engine allows. */
  insertMany(sql: SqlQueries, table: string, columns: readonly InsertColumn[], rows: readonly unknown[][]): Maybe<void>;
  /** A selected memory row as the public {@link Memory}. */
  toMemory(row: MemoryColumns<unknown, unknown>): Memory;
  /** A driver error as an EngramError with a stable code (EngramErrors pass through). */
  toEngramError(error: unknown, operation: string): EngramError;
}
