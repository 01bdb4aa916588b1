/**
 * Stable error codes and the HTTP status each one is answered with. Callers switch on `code`,
 * never on message text; the server maps codes to statuses with this table and the client maps
 * an error body back by its code.
 */
export const ERROR_HTTP_STATUS = Object.freeze({
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
  /** A request body, batch or other payload larger than the server accepts. */
  PAYLOAD_TOO_LARGE: 413,
  /** An unexpected failure inside Engram (a bug). */
  INTERNAL: 500,
  /** A write holds sensitive data (a secret, card, IBAN, …) that the safety policy rejects; `details.categories` / `details.fields` say which, never the value. */
  SENSITIVE_DATA_REJECTED: 422,
  /** A write's text tries to instruct the model and the safety policy rejects such text (instead of flagging it). */
  INSTRUCTION_REJECTED: 422,
} as const);

export type EngramErrorCode = keyof typeof ERROR_HTTP_STATUS;

/** Every error code, in the order of {@link ERROR_HTTP_STATUS}. */
export const ERROR_CODES = Object.freeze(Object.keys(ERROR_HTTP_STATUS) as EngramErrorCode[]);

/** True when `value` is one of Engram's error codes. */
export function isEngramErrorCode(value: unknown): value is EngramErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_HTTP_STATUS, value);
}

/** Options every {@link EngramError} accepts. */
export interface EngramErrorOptions {
  /** The underlying error, kept for logs and debugging. */
  cause?: unknown;
  /** True when retrying the same call may succeed (busy database, 429, 5xx, timeout). */
  isRetryable?: boolean;
  /** Structured facts about the failure (field name, limits, ids). Never secrets. */
  details?: Record<string, unknown>;
}

/** The one error class Engram throws. `code` is stable across releases. */
export class EngramError extends Error {
  override readonly name = 'EngramError';
  readonly code: EngramErrorCode;
  readonly isRetryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(code: EngramErrorCode, message: string, options: EngramErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.isRetryable = options.isRetryable ?? false;
    this.details = options.details ?? {};
  }

  /** A plain object safe to log or send over the wire. */
  toJSON(): { code: EngramErrorCode; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Type guard that also narrows by code when one is given. */
export function isEngramError(value: unknown, code?: EngramErrorCode): value is EngramError {
  return value instanceof EngramError && (code === undefined || value.code === code);
}
