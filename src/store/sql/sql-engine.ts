import type { SelectedMemory } from '../memory-from-columns.js';
import type { StoreVector } from '../memory-store.js';
import type { Maybe } from './maybe-async.js';
import type { RowPatch, StoredRecord } from './memory-columns.js';
import type { QueryRunner, SqlQueries } from './query-runner.js';
import type { SqlDialect } from './sql-dialect.js';

/** One row's change, as {@link SqlEngine.updateRow} receives it (already validated). */
export interface RowChange {
  tenant: string;
  id: string;
  patch: RowPatch;
  /** Undefined keeps the vector; null clears it. */
  vector: StoreVector | undefined;
}

/** Which write just committed, for {@link SqlEngine.afterWrite}. */
export type WriteKind = 'insert' | 'update' | 'delete';

/**
 * What the parts of the engine built on the memories table (history, episodes, the work queue,
 * formation's window transaction) use of a backend: its dialect and runner, and its own writes
 * of memory rows, so that full text, tags, the change log and pgvector stay in step whoever
 * writes. Given by `SqlMemoryStore`.
 */
export interface SqlEngine {
  readonly kind: string;
  readonly dialect: SqlDialect;
  readonly runner: QueryRunner;
  /** Runs a call on an open store; failures come out as EngramErrors with stable codes. */
  guard<T>(operation: string, work: () => Maybe<T>): Promise<T>;
  /** Writes validated records inside a transaction. */
  insertRows(sql: SqlQueries, records: StoredRecord[]): Maybe<void>;
  /** Applies a validated change inside a transaction; the row after it, or null when missing. */
  updateRow(sql: SqlQueries, change: RowChange): Maybe<SelectedMemory | null>;
  /** Removes rows of the tenant inside a transaction; how many were removed. */
  deleteRows(sql: SqlQueries, tenant: string, ids: string[]): Maybe<number>;
  /** Before rows with vectors of these dimensions are written. */
  prepareVectors(dims: number[]): Maybe<void>;
  /** After a write committed (SQLite: caches learn of it). */
  afterWrite(kind: WriteKind, rows: number): void;
  /** A new unique id (history events, jobs, episodes). */
  newId(): string;
  /** Now, as ISO-8601 UTC (a delete's history time). */
  now(): string;
}
