import type { EngramErrorCode } from '../model/errors.js';

/** The one table from error code to HTTP status. The client maps back by `code`, not status. */
export const ERROR_STATUS: Readonly<Record<EngramErrorCode, number>> = Object.freeze({
  INVALID_INPUT: 400,
  INVALID_TEXT: 400,
  TEXT_TOO_LONG: 413,
  INVALID_LIMIT: 400,
  INVALID_SCOPE: 400,
  INVALID_VECTOR: 400,
  DIMENSION_MISMATCH: 400,
  MODEL_MISMATCH: 409,
  CORRUPT_VECTOR: 500,
  NOT_FOUND: 404,
  CONFLICT: 409,
  STORE_BUSY: 503,
  STORE_ERROR: 500,
  STORE_CLOSED: 503,
  MIGRATION_ERROR: 500,
  EMBEDDER_ERROR: 502,
  LLM_ERROR: 502,
  TIMEOUT: 504,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  CONFIG_ERROR: 500,
  UNSUPPORTED: 400,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL: 500,
  SENSITIVE_DATA_REJECTED: 422,
  INSTRUCTION_REJECTED: 422,
});

/** Codes that a client may retry after a pause. */
export function isRetryableStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}
