import { randomUUID } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { MemoryApi } from '../model/api.js';
import type { KeyVerifier } from '../auth/key-store.js';
import { EngramError, isEngramError, type EngramErrorCode } from '../model/errors.js';
import { ERROR_HTTP_STATUS } from '../model/errors.js';
import { silentLogger, type ServerLogger } from './server-logger.js';
import { createServerMetrics, type ServerMetrics } from './server-metrics.js';
import { registerMemoryRoutes } from './memory-routes.js';
import { registerRecallRoutes } from './recall-routes.js';
import { registerMcpRoute } from './mcp-route.js';
import { registerSearchRoute, type SearchDeps } from './search-route.js';
import { inspectorRoutes } from './inspector-routes.js';
import { registerStaticInspector, type StaticInspectorOptions } from './static-inspector.js';
import { ErrorSchema } from './schemas.js';
import type { AppEnv } from './route-kit.js';

/** Size limits of the HTTP layer (the facade's own text and result limits apply as well). */
export interface ServerLimits {
  /** Largest request body, in bytes. @default 4194304 (4 MiB) */
  maxBodyBytes: number;
  /** Most memories in one batch import. @default 1000 */
  maxBatch: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = { maxBodyBytes: 4 * 1024 * 1024, maxBatch: 1_000 };

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The memory API served (usually an in-process `Engram`). */
  api: MemoryApi;
  /** Resolves API keys to principals. */
  keys: KeyVerifier;
  /** @default a silent logger */
  logger?: ServerLogger | undefined;
  /** @default a fresh registry with process metrics */
  metrics?: ServerMetrics | undefined;
  limits?: Partial<ServerLimits> | undefined;
  /** Readiness probe for `/readyz`. @default always ready */
  ready?: (() => boolean) | undefined;
  /** Validate every JSON response against its schema (tests; costs CPU). @default false */
  validateResponses?: boolean | undefined;
  /** Request id when the client sends no usable `x-request-id`. @default crypto.randomUUID */
  generateRequestId?: (() => string) | undefined;
  /** What `/v1/search` builds the searcher from (usually the Engram's store and embedder). @default none: `/v1/search` answers UNSUPPORTED */
  search?: SearchDeps | undefined;
  /** Serve the MCP Streamable HTTP endpoint at `/mcp`. @default true */
  mcp?: boolean | undefined;
  /** Serve the memory inspector page at `/inspector/` and its `/v1/inspector/whoami` endpoint (not in the OpenAPI document); false turns both off. @default {} (the build in web/dist) */
  inspector?: StaticInspectorOptions | false | undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The error envelope `{ error: { code, message, details } }` and its status. */
export function errorResponse(c: Context, error: EngramError): Response {
  const status = ERROR_HTTP_STATUS[error.code] ?? 500;
  const headers: Record<string, string> = {};
  if (status === 503) headers['retry-after'] = '1';
  // The rest of an oversized body is never read: tell the client not to reuse the connection.
  if (error.code === 'PAYLOAD_TOO_LARGE') headers.connection = 'close';
  return c.json({ error: error.toJSON() }, status as 400, headers);
}

function fromHttpException(error: HTTPException): EngramError {
  const byStatus: Record<number, EngramErrorCode> = { 400: 'INVALID_INPUT', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 413: 'PAYLOAD_TOO_LARGE' };
  const code = byStatus[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_INPUT');
  return new EngramError(code, error.message || `HTTP ${error.status}`, { cause: error });
}

/**
 * The Engram HTTP API as a Hono app: memories, recall/search, inject, health, readiness,
 * Prometheus metrics, the OpenAPI 3.1 document and the MCP endpoint. Runs on any fetch-style
 * runtime; {@link startServer} serves it on Node.
 */
export function createApp(options: AppOptions): OpenAPIHono<AppEnv> {
  const logger = options.logger ?? silentLogger();
  const metrics = options.metrics ?? createServerMetrics();
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const generateRequestId = options.generateRequestId ?? randomUUID;
  const app = new OpenAPIHono<AppEnv>();

  app.use('*', async (c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const reqId = given !== undefined && REQUEST_ID.test(given) ? given : generateRequestId();
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
      metrics.observeRequest(c.req.method, route, status, ms / 1000);
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
      if (status >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request');
    }
  });

  app.use(
    '*',
    bodyLimit({
      maxSize: limits.maxBodyBytes,
      onError: () => {
        throw new EngramError('PAYLOAD_TOO_LARGE', `the request body is larger than ${limits.maxBodyBytes} bytes`, {
          details: { limit: limits.maxBodyBytes },
        });
      },
    }),
  );

  app.onError((err, c) => {
    let error: EngramError;
    if (isEngramError(err)) error = err;
    else if (err instanceof HTTPException) error = fromHttpException(err);
    else {
      logger.error({ reqId: c.get('reqId'), err }, 'unexpected error');
      error = new EngramError('INTERNAL', 'internal error', { details: { reqId: c.get('reqId') } });
    }
    if (ERROR_HTTP_STATUS[error.code] >= 500 && isEngramError(err)) logger.error({ reqId: c.get('reqId'), err }, error.message);
    c.set('errorCode', error.code);
    return errorResponse(c, error);
  });

  app.notFound((c) => {
    c.set('errorCode', 'NOT_FOUND');
    return errorResponse(c, new EngramError('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`));
  });

  const kit = {
    api: options.api,
    keys: options.keys,
    limits,
    metrics,
    validateResponses: options.validateResponses ?? false,
  };
  registerMemoryRoutes(app, kit);
  registerRecallRoutes(app, kit);
  registerSearchRoute(app, kit, options.search);
  if (options.mcp !== false) registerMcpRoute(app, kit);
  if (options.inspector !== false) {
    app.route('/', inspectorRoutes(kit, options.search));
    registerStaticInspector(app, options.inspector);
  }

  app.get('/healthz', (c) => {
    c.set('route', '/healthz');
    return c.json({ status: 'ok' });
  });
  app.get('/readyz', (c) => {
    c.set('route', '/readyz');
    const ready = options.ready?.() ?? true;
    return c.json({ status: ready ? 'ready' : 'not ready' }, ready ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    c.set('route', '/metrics');
    const text = await metrics.render();
    return c.text(text, 200, { 'content-type': metrics.registry.contentType });
  });

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An Engram API key (`engram keys create`). The tenant of every request comes from the key.',
  });
  app.openAPIRegistry.register('Error', ErrorSchema);
  const plain = (path: string, summary: string, description: string, contentType: string) =>
    app.openAPIRegistry.registerPath({
      method: 'get',
      path,
      summary,
      tags: ['operations'],
      responses: { 200: { description, content: { [contentType]: { schema: { type: 'string' } } } } },
    });
  plain('/healthz', 'Liveness', 'The process is up: `{"status":"ok"}`', 'application/json');
  plain('/readyz', 'Readiness', '`{"status":"ready"}`; 503 while shutting down', 'application/json');
  plain('/metrics', 'Prometheus metrics', 'Text exposition format (no key needed)', 'text/plain');
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/mcp',
    summary: 'Model Context Protocol (Streamable HTTP, stateless, JSON responses)',
    description: 'Tools add_memory, search_memories, list_memories, delete_memory; the tenant comes from the API key.',
    tags: ['mcp'],
    security: [{ apiKey: [] }],
    responses: { 200: { description: 'JSON-RPC response' } },
  });
  let document: unknown;
  app.get('/openapi.json', (c) => {
    c.set('route', '/openapi.json');
    document ??= app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Engram',
        version: '0.1.0',
        description: 'Memory for LLM applications. Errors are `{ error: { code, message, details } }` with a stable code.',
      },
    });
    return c.json(document as Record<string, unknown>);
  });
  return app;
}
