import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ERROR_HTTP_STATUS, EngramError, isEngramError } from '../model/errors.js';
import { codeForHttpStatus } from '../model/status-code.js';
import type { AppEnv } from './route-types.js';
import type { ServerLogger } from './server-logger.js';

/** The error envelope `{ error: { code, message, details } }` with the status of its code. */
export function errorResponse(c: Context, error: EngramError): Response {
  const status = ERROR_HTTP_STATUS[error.code] ?? 500;
  const headers: Record<string, string> = {};
  if (status === 503) headers['retry-after'] = '1';
  // The rest of an oversized body is never read: tell the client not to reuse the connection.
  if (error.code === 'PAYLOAD_TOO_LARGE') headers.connection = 'close';
  return c.json({ error: error.toJSON() }, status as 400, headers);
}

/** Hono's own exceptions (rare: requests it rejects itself), by status. */
function fromHttpException(error: HTTPException): EngramError {
  return new EngramError(codeForHttpStatus(error.status), error.message || `HTTP ${error.status}`, { cause: error });
}

/**
 * Every failure leaves as the error envelope: an EngramError keeps its code, Hono's exceptions
 * map by status, anything else is INTERNAL (logged with the request id, never sent). Unknown
 * routes are NOT_FOUND.
 */
export function answerErrors(app: OpenAPIHono<AppEnv>, logger: ServerLogger): void {
  app.onError((err, c) => {
    let error: EngramError;
    if (isEngramError(err)) error = err;
    else if (err instanceof HTTPException) error = fromHttpException(err);
    else {
      logger.error({ reqId: c.get('reqId'), err }, 'unexpected error');
      error = new EngramError('INTERNAL', 'internal error', { details: { reqId: c.get('reqId') } });
    }
    if (ERROR_HTTP_STATUS[error.code] >= 500 && isEngramError(err))
      logger.error({ reqId: c.get('reqId'), err }, error.message);
    c.set('errorCode', error.code);
    return errorResponse(c, error);
  });
  app.notFound((c) => {
    c.set('errorCode', 'NOT_FOUND');
    return errorResponse(c, new EngramError('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`));
  });
}
