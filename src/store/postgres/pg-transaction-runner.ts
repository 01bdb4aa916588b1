import type pg from 'pg';
import { retry } from '../../util/retry.js';
import { isConnectionError, isConnectTimeout, isSerializationError, toEngramError } from './pg-errors.js';

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
 * Runs `work` on a pooled client, retrying serialization failures and deadlocks (40001, 40P01,
 * "restart transaction") and lost connections with exponential backoff and jitter through the
 * shared retry helper. A client whose connection failed is destroyed rather than returned to
 * the pool, so the next attempt gets a fresh connection. Errors come out as EngramErrors.
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
        if (!isConnectionError(error)) await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } catch (error) {
      if (isConnectionError(error)) broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
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
