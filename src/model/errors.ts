/**
 * Stable error codes. The HTTP layer maps them to statuses; callers switch on `code`,
 * never on message text.
 */
export type EngramErrorCode =
  | 'INVALID_INPUT'
  | 'INVALID_TEXT'
  | 'TEXT_TOO_LONG'
  | 'INVALID_LIMIT'
  | 'INVALID_SCOPE'
  | 'INVALID_VECTOR'
  | 'DIMENSION_MISMATCH'
  | 'MODEL_MISMATCH'
  | 'CORRUPT_VECTOR'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'STORE_BUSY'
  | 'STORE_ERROR'
  | 'STORE_CLOSED'
  | 'MIGRATION_ERROR'
  | 'EMBEDDER_ERROR'
  | 'LLM_ERROR'
  | 'TIMEOUT'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'CONFIG_ERROR'
  | 'UNSUPPORTED'
  /** A request body, batch or other payload larger than the server accepts (HTTP 413). */
  | 'PAYLOAD_TOO_LARGE'
  /** An unexpected failure inside Engram (a bug); the HTTP layer answers 500. */
  | 'INTERNAL'
  /** A write holds sensitive data (a secret, card, IBAN, …) that the safety policy rejects; `details.categories` / `details.fields` say which, never the value. */
  | 'SENSITIVE_DATA_REJECTED'
  /** A write's text tries to instruct the model and the safety policy rejects such text (instead of flagging it). */
  | 'INSTRUCTION_REJECTED';

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
