import type pg from 'pg';
import { retry } from '../../util/retry.js';
import {
  isBrokenConnection,
  isConnectionError,
  isConnectTimeout,
  isSerializationError,
  toEngramError,
} from './pg-errors.js';

/** Transaction isolation level used by store writes. */
export type PgIsolation = 'read committed' | 'repeatable read' | 'serializable';

/** How transient failures are retried. */
export interface PgRetryOptions {
  /** Retries after the first attempt. @default 3 */
  retries?: number | undefined;
  /** First backoff delay in ms (doubled each retry, with full jitter). @default 20 */
  baseMs?: number | undefined;
  /** Longest backoff delay in ms. @default 1000 */
  maxMs?: number | undefined;
  /** Called before each retry with the error and the attempt that failed (1-based). */
  onRetry?: ((error: unknown, attempt: number) => void) | undefined;
}

/** Options of one {@link runPg} call. */
export interface RunPgOptions {
  /** Wrap the work in BEGIN … COMMIT. @default false */
  transaction?: boolean | undefined;
  /** @default 'read committed' */
  isolation?: PgIsolation | undefined;
  /**
   * True when running the work twice is harmless. A connection lost while COMMIT was in flight
   * leaves the outcome unknown, so non-idempotent work is then not retried. @default false
   */
  idempotent?: boolean | undefined;
}

/**
 * A ROLLBACK slower than this (on Citus: it waits on a worker that stopped answering) is given
 * up and the connection dropped instead; the server rolls back a session that goes away.
 */
const ROLLBACK_TIMEOUT_MS = 500;

// node-postgres reads a per-query query_timeout; its types do not declare it.
const rollbackQuery = { text: 'ROLLBACK', query_timeout: ROLLBACK_TIMEOUT_MS } as pg.QueryConfig;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Runs `work` on a pooled client, retrying serialization failures and deadlocks (40001, 40P01,
 * "restart transaction") and lost connections with exponential backoff and jitter through the
 * shared retry helper. A client whose connection failed is destroyed rather than returned to
 * the pool, so the next attempt gets a fresh connection (a server ERROR of class 08 — on Citus,
 * a worker the coordinator cannot reach — is retried on the same healthy session). Errors come
 * out as EngramErrors.
 */
export async function runPg<T>(
  pool: pg.Pool,
  operation: string,
  work: (client: pg.PoolClient) => Promise<T>,
  options: RunPgOptions = {},
  retryOptions: PgRetryOptions = {},
): Promise<T> {
  let commitInFlight = false;
  const attempt = async (): Promise<T> => {
    commitInFlight = false;
    const client = await pool.connect();
    let broken: Error | undefined;
    // A checked-out client has no 'error' listener of the pool's: a connection that dies between
    // two statements (the server shut down, a proxy cut it) would crash the process.
    const onError = (error: unknown): void => {
      broken = asError(error);
    };
    client.on('error', onError);
    try {
      if (!options.transaction) return await work(client);
      await client.query(`BEGIN ISOLATION LEVEL ${(options.isolation ?? 'read committed').toUpperCase()}`);
      try {
        const result = await work(client);
        commitInFlight = true;
        await client.query('COMMIT');
        commitInFlight = false;
        return result;
      } catch (error) {
        // A session whose ROLLBACK fails (or times out) may still hold the transaction: drop it.
        if (!isBrokenConnection(error))
          await client.query(rollbackQuery).catch((rollback: unknown) => (broken = asError(rollback)));
        throw error;
      }
    } catch (error) {
      if (isBrokenConnection(error)) broken = asError(error);
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  };
  try {
    return await retry(attempt, {
      retries: retryOptions.retries ?? 3,
      baseMs: retryOptions.baseMs ?? 20,
      maxMs: retryOptions.maxMs ?? 1000,
      isRetryable: (error: unknown) =>
        isSerializationError(error) ||
        // A connect timeout already waited its full budget: retrying would multiply the wait.
        (isConnectionError(error) && !isConnectTimeout(error) && (options.idempotent === true || !commitInFlight)),
      onRetry: (error: unknown, attemptNumber: number) => retryOptions.onRetry?.(error, attemptNumber),
    });
  } catch (error) {
    throw toEngramError(error, operation);
  }
}
