import { EngramError } from '../../model/errors.js';
import { isTransientStoreError } from '../transient-error.js';

/** Fields node-postgres puts on server and socket errors. */
interface PgLikeError {
  code?: unknown;
  message?: unknown;
  errno?: unknown;
  severity?: unknown;
}

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function fields(error: unknown): PgLikeError {
  return typeof error === 'object' && error !== null ? (error as PgLikeError) : {};
}

/** The SQLSTATE (or Node errno) of an error, if it has one. */
export function pgErrorCode(error: unknown): string | undefined {
  const { code } = fields(error);
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when the connection (not the statement) failed: refused, reset, terminated by the server
 * (57P01 admin shutdown, 57P02, 57P03), class 08 connection exceptions (on Citus also the
 * coordinator's connection to a worker), node-postgres's "Connection terminated" / connect
 * timeout, or Citus losing a worker during COMMIT ("could not commit transaction for shard …":
 * the outcome is unknown, so only idempotent work is retried). The pool drops a client whose own
 * connection failed; a new one is opened.
 */
export function isConnectionError(error: unknown): boolean {
  const code = pgErrorCode(error);
  if (code !== undefined) {
    if (CONNECTION_ERRNOS.has(code)) return true;
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  }
  const { message } = fields(error);
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|could not commit transaction for shard \d+ on at least one active node/i.test(
      message,
    )
  );
}

/** node-postgres gave up connecting after `connectionTimeoutMillis` (pool or client). */
export function isConnectTimeout(error: unknown): boolean {
  const { message } = fields(error);
  return (
    typeof message === 'string' && /timeout exceeded when trying to connect|due to connection timeout/i.test(message)
  );
}

/**
 * True when the connection itself must be dropped: a socket failure, the server ending the
 * session (FATAL: 57P01 admin shutdown …), or a timeout (the session may still wait on a node that
 * stopped answering: on Citus its next statement would wait too). A server ERROR of class 08
 * (Citus: the coordinator could not reach a worker) leaves this session healthy.
 */
export function isBrokenConnection(error: unknown): boolean {
  return (isConnectionError(error) && fields(error).severity !== 'ERROR') || isStatementTimeout(error);
}

/**
 * The server cancelled the statement after `statement_timeout` (SQLSTATE 57014), or node-postgres
 * stopped waiting after `query_timeout` (the statement may still run: the connection is dropped).
 */
export function isStatementTimeout(error: unknown): boolean {
  const { message } = fields(error);
  return (
    (pgErrorCode(error) === '57014' && typeof message === 'string' && /statement timeout/i.test(message)) ||
    isQueryTimeout(error)
  );
}

function isQueryTimeout(error: unknown): boolean {
  const { message, code } = fields(error);
  return code === undefined && message === 'Query read timeout';
}

/** Serialization failure, deadlock, or "restart transaction" (CockroachDB): retry the transaction. */
export function isSerializationError(error: unknown): boolean {
  return !(error instanceof EngramError) && isTransientStoreError(error);
}

/**
 * Wraps any error from `pg` in an EngramError with a stable code:
 * 23505 -> CONFLICT; serialization / deadlock -> STORE_BUSY (retryable); connection failures
 * (the server, or on Citus the worker holding the tenant's shard) -> STORE_UNAVAILABLE
 * (retryable); `statement_timeout` -> TIMEOUT (retryable); invalid text encoding -> INVALID_TEXT;
 * 54000 (e.g. tsvector over 1 MB) -> TEXT_TOO_LONG; anything else -> STORE_ERROR.
 * The SQLSTATE or errno is kept in `details.pgCode`. EngramErrors pass through unchanged.
 */
export function toEngramError(error: unknown, operation: string): EngramError {
  if (error instanceof EngramError) return error;
  const code = pgErrorCode(error);
  const { message } = fields(error);
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  const details = { operation, pgCode: code };
  if (code === '23505') {
    return new EngramError('CONFLICT', `postgres ${operation}: duplicate id (${text})`, { cause: error, details });
  }
  if (isSerializationError(error)) {
    return new EngramError('STORE_BUSY', `postgres ${operation}: transaction conflict after retries (${text})`, {
      cause: error,
      isRetryable: true,
      details,
    });
  }
  if (isConnectionError(error)) {
    return new EngramError(
      'STORE_UNAVAILABLE',
      `postgres ${operation}: connection failed (${code ?? 'no code'}: ${text})`,
      { cause: error, isRetryable: true, details },
    );
  }
  if (isStatementTimeout(error)) {
    return new EngramError('TIMEOUT', `postgres ${operation}: statement timeout (${text})`, {
      cause: error,
      isRetryable: true,
      details,
    });
  }
  if (code === '54000') {
    return new EngramError('TEXT_TOO_LONG', `postgres ${operation}: text too large to index (${text})`, {
      cause: error,
      details,
    });
  }
  if (code === '22021' || code === '22P05') {
    return new EngramError('INVALID_TEXT', `postgres ${operation}: text rejected by the server (${text})`, {
      cause: error,
      details,
    });
  }
  return new EngramError('STORE_ERROR', `postgres ${operation} failed (${code ?? 'no code'}: ${text})`, {
    cause: error,
    details,
  });
}
