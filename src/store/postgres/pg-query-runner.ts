import type pg from 'pg';
import type { Maybe } from '../sql/maybe-async.js';
import type { QueryRunner, SqlQueries, TransactionOptions } from '../sql/query-runner.js';
import { runPg, type PgIsolation, type PgRetryOptions } from './pg-transaction-runner.js';

/** Statements on one pooled client. */
export function clientQueries(client: pg.PoolClient): SqlQueries {
  return {
    all: async <R>(sql: string, params: readonly unknown[]) =>
      (await client.query(sql, params as unknown[])).rows as R[],
    run: async (sql: string, params: readonly unknown[]) =>
      (await client.query(sql, params as unknown[])).rowCount ?? 0,
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
