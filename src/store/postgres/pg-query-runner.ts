import type pg from 'pg';
import type { Maybe } from '../sql/maybe-async.js';
import type { QueryRunner, SqlQueries, TransactionOptions } from '../sql/query-runner.js';
import { runPg, type PgIsolation, type PgRetryOptions } from './pg-transaction-runner.js';

/** Anything node-postgres can run a statement on: a pooled client, a client, or a pool. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult<Record<string, unknown>>>;
}

/** The result of the last statement (a simple query of several statements answers with one result each). */
function lastResult(result: pg.QueryResult | pg.QueryResult[]): pg.QueryResult {
  return Array.isArray(result) ? (result[result.length - 1] as pg.QueryResult) : result;
}

/**
 * Statements on one pooled client (or on a pool, for statements that need no session state: each
 * may run on another connection, so no transaction or `SET LOCAL`).
 */
export function clientQueries(client: PgQueryable): SqlQueries {
  return {
    all: async <R>(sql: string, params: readonly unknown[]) =>
      lastResult(await client.query(sql, params as unknown[])).rows as R[],
    run: async (sql: string, params: readonly unknown[]) =>
      lastResult(await client.query(sql, params as unknown[])).rowCount ?? 0,
  };
}

/**
 * The engine's {@link QueryRunner} over a node-postgres pool: each read or transaction takes a
 * client, and transient failures (serialization, deadlocks, lost connections) are retried as a
 * whole by {@link runPg}. Reads are always safe to retry.
 */
export class PgQueryRunner implements QueryRunner {
  constructor(
    private readonly pool: pg.Pool,
    private readonly isolation: PgIsolation | undefined,
    private readonly retry: PgRetryOptions | undefined,
  ) {}

  read<T>(operation: string, work: (sql: SqlQueries) => Maybe<T>): Promise<T> {
    return runPg(this.pool, operation, async (client) => work(clientQueries(client)), { idempotent: true }, this.retry);
  }

  transaction<T>(operation: string, work: (sql: SqlQueries) => Maybe<T>, options: TransactionOptions = {}): Promise<T> {
    return runPg(
      this.pool,
      operation,
      async (client) => work(clientQueries(client)),
      { transaction: true, isolation: this.isolation, idempotent: options.idempotent },
      this.retry,
    );
  }
}
