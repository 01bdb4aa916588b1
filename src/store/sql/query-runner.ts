import type { Maybe } from './maybe-async.js';

/** Statements on one connection (inside a transaction when given to a write). */
export interface SqlQueries {
  /** Rows of a query (or of a write with RETURNING). */
  all<R>(sql: string, params: readonly unknown[]): Maybe<R[]>;
  /** Runs a statement; returns how many rows it changed. */
  run(sql: string, params: readonly unknown[]): Maybe<number>;
}

/** Options of {@link QueryRunner.transaction}. */
export interface TransactionOptions {
  /**
   * Running the work twice is harmless, so a transaction whose COMMIT was lost with the connection
   * may be retried. @default false
   */
  idempotent?: boolean | undefined;
}

/**
 * How the engine reaches a database: what each driver does for a read and for a write
 * transaction. SQLite runs both synchronously on its one connection (writes `BEGIN IMMEDIATE`);
 * PostgreSQL takes a pooled client and retries transient failures (serialization, deadlocks, lost
 * connections) as a whole. `operation` names the call in errors and retries.
 */
export interface QueryRunner {
  /** Reads (one or more statements on one connection, no transaction). */
  read<T>(operation: string, work: (sql: SqlQueries) => Maybe<T>): Maybe<T>;
  /** Writes in one transaction: all of `work` is stored or none of it. */
  transaction<T>(operation: string, work: (sql: SqlQueries) => Maybe<T>, options?: TransactionOptions): Maybe<T>;
}
