import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './route-types.js';
import type { ServerLogger } from './server-logger.js';
import type { ServerMetrics } from './server-metrics.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What {@link useRequestLog} records to. */
export interface RequestLogSinks {
  logger: ServerLogger;
  metrics: ServerMetrics;
  /** Request id when the client sends no usable `x-request-id`. */
  generateRequestId: () => string;
}

/**
 * The first middleware: gives every request an id (the client's `x-request-id` when usable),
 * echoes it, and after the response records its route, status and latency as a metric and one
 * log line (errors at `error` level, with the tenant and key id once known).
 */
export function useRequestLog(app: OpenAPIHono<AppEnv>, sinks: RequestLogSinks): void {
  app.use('*', async (c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const reqId = given !== undefined && REQUEST_ID.test(given) ? given : sinks.generateRequestId();
    c.set('reqId', reqId);
    c.set('startedAt', started);
    c.set('route', 'unmatched');
    c.header('x-request-id', reqId);
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      const route = c.get('route');
      const status = c.res.status;
      sinks.metrics.observeRequest(c.req.method, route, status, ms / 1000);
      const principal = c.get('principal');
      const line = {
        reqId,
        method: c.req.method,
        route,
        status,
        ms: Math.round(ms * 100) / 100,
        tenant: principal?.tenant,
        keyId: principal?.keyId,
        code: c.get('errorCode'),
      };
      if (status >= 500) sinks.logger.error(line, 'request failed');
      else sinks.logger.info(line, 'request');
    }
  });
}
