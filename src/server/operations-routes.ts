import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './route-types.js';
import type { ServerMetrics } from './server-metrics.js';

/** Registers a keyless GET endpoint in the OpenAPI document. */
function documentPlain(
  app: OpenAPIHono<AppEnv>,
  path: string,
  summary: string,
  description: string,
  contentType: string,
): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path,
    summary,
    tags: ['operations'],
    responses: { 200: { description, content: { [contentType]: { schema: { type: 'string' } } } } },
  });
}

/** `/healthz` (liveness), `/readyz` (readiness: 503 while draining) and `/metrics` (Prometheus), without a key. */
export function registerOperationsRoutes(app: OpenAPIHono<AppEnv>, metrics: ServerMetrics, ready: () => boolean): void {
  app.get('/healthz', (c) => {
    c.set('route', '/healthz');
    return c.json({ status: 'ok' });
  });
  app.get('/readyz', (c) => {
    c.set('route', '/readyz');
    const isReady = ready();
    return c.json({ status: isReady ? 'ready' : 'not ready' }, isReady ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    c.set('route', '/metrics');
    const text = await metrics.render();
    return c.text(text, 200, { 'content-type': metrics.registry.contentType });
  });
  documentPlain(app, '/healthz', 'Liveness', 'The process is up: `{"status":"ok"}`', 'application/json');
  documentPlain(app, '/readyz', 'Readiness', '`{"status":"ready"}`; 503 while shutting down', 'application/json');
  documentPlain(app, '/metrics', 'Prometheus metrics', 'Text exposition format (no key needed)', 'text/plain');
}
