import type { EngramErrorCode } from './errors.js';

/**
 * The most general code for each status of {@link ERROR_HTTP_STATUS} (plus 408), for an answer
 * that carries no Engram error body: a proxy's error page, a crash, a framework's own exception.
 */
const CODE_OF_STATUS: Readonly<Record<number, EngramErrorCode>> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  // Both safety rejections answer 422; without a body the content rule is the likelier one.
  422: 'SENSITIVE_DATA_REJECTED',
  502: 'EMBEDDER_ERROR',
  503: 'STORE_BUSY',
  504: 'TIMEOUT',
};

/** The code to report for an HTTP status without an Engram error body; INTERNAL for other 5xx, INVALID_INPUT for other 4xx. */
export function codeForHttpStatus(status: number): EngramErrorCode {
  return CODE_OF_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_INPUT');
}
