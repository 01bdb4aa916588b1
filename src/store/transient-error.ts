import { EngramError } from '../model/errors.js';

const TRANSIENT_SQLSTATES = new Set(['40001', '40P01']);

/**
 * True for storage errors worth retrying: serialization failures and deadlocks (SQLSTATE 40001,
 * 40P01), CockroachDB's "restart transaction", a busy SQLite database, and any EngramError marked
 * retryable by its backend.
 */
export function isTransientStoreError(error: unknown): boolean {
  if (error instanceof EngramError) {
    if (error.isRetryable) return true;
    return error.cause !== undefined && error.cause !== error && isTransientStoreError(error.cause);
  }
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && TRANSIENT_SQLSTATES.has(code)) return true;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  return typeof message === 'string' && /restart transaction/i.test(message);
}
