import { EngramError } from '../../model/errors.js';

function sqliteCode(error: unknown): string | null {
  if (error !== null && typeof error === 'object' && 'code' in error && typeof error.code === 'string')
    return error.code;
  return null;
}

/** True for SQLITE_BUSY / SQLITE_LOCKED and their extended codes. */
export function isSqliteBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== null && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Maps a SQLite driver error to an EngramError with a stable code:
 * busy/locked -> STORE_BUSY (retryable), unique/primary key -> CONFLICT, anything else ->
 * STORE_ERROR. EngramErrors pass through unchanged.
 */
export function toEngramError(error: unknown, operation: string): EngramError {
  if (error instanceof EngramError) return error;
  const code = sqliteCode(error);
  if (isSqliteBusy(error)) {
    return new EngramError('STORE_BUSY', `database is busy (${operation})`, {
      cause: error,
      isRetryable: true,
      details: { sqlite: code },
    });
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new EngramError('CONFLICT', `duplicate id (${operation})`, { cause: error, details: { sqlite: code } });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new EngramError('STORE_ERROR', `${operation} failed: ${message}`, { cause: error, details: { sqlite: code } });
}
