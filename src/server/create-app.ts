import { randomUUID } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { KeyVerifier } from '../auth/key-store.js';
import type { MemoryApi } from '../model/api.js';
import { RerankerRegistry } from '../search/rank/reranker-registry.js';
import { useBodyLimit } from './body-limit.js';
import { answerErrors } from './error-response.js';
import { inspectorRoutes } from './inspector-routes.js';
import { registerMcpRoute } from './mcp-route.js';
import { registerFormationRoutes } from './formation-routes.js';
import { registerMemoryRoutes } from './memory-routes.js';
import { registerOpenApiDocument } from './openapi-document.js';
import { registerOperationsRoutes } from './operations-routes.js';
import { registerRecallRoutes } from './recall-routes.js';
import { useRequestLog } from './request-log.js';
import type { AppEnv, RouteKit, SearchServing } from './route-types.js';
import { registerSearchRoute } from './search-route.js';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.js';
import { silentLogger, type ServerLogger } from './server-logger.js';
import { createServerMetrics, type ServerMetrics } from './server-metrics.js';
import { registerStaticInspector, type StaticInspectorOptions } from './static-inspector.js';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The memory API served (an in-process `Engram`, or any other `MemoryApi`). Every route calls it; the server never reaches inside it. */
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
  /**
   * What the server tells about `/v1/search` (the reranker names the API accepts, for the
   * inspector), or false to turn `/v1/search` off (it answers UNSUPPORTED).
   * @default { rerankers: the built-in names, `cosine-local` and `noop` }
   */
  search?: SearchServing | false | undefined;
  /** Serve the MCP Streamable HTTP endpoint at `/mcp`. @default true */
  mcp?: boolean | undefined;
  /** Serve the memory inspector page at `/inspector/` and its `/v1/inspector/whoami` endpoint (not in the OpenAPI document); false turns both off. @default {} (the build in web/dist) */
  inspector?: StaticInspectorOptions | false | undefined;
}

function routeKitOf(options: AppOptions): RouteKit {
  return {
    api: options.api,
    keys: options.keys,
    limits: { ...DEFAULT_SERVER_LIMITS, ...options.limits },
    metrics: options.metrics ?? createServerMetrics(),
    validateResponses: options.validateResponses ?? false,
    search: options.search ?? { rerankers: new RerankerRegistry().names() },
  };
}

/**
 * The Engram HTTP API as a Hono app: memories, recall, search, inject, the MCP endpoint, the
 * inspector, health, readiness, Prometheus metrics and the OpenAPI 3.1 document. Runs on any
 * fetch-style runtime; {@link startServer} serves it on Node. The steps run in this order
 * because Hono runs middleware in registration order and the document lists what came before it.
 */
export function createApp(options: AppOptions): OpenAPIHono<AppEnv> {
  const kit = routeKitOf(options);
  const logger = options.logger ?? silentLogger();
  const app = new OpenAPIHono<AppEnv>();
  useRequestLog(app, { logger, metrics: kit.metrics, generateRequestId: options.generateRequestId ?? randomUUID });
  useBodyLimit(app, kit.limits.maxBodyBytes);
  answerErrors(app, logger);
  registerMemoryRoutes(app, kit);
  registerRecallRoutes(app, kit);
  registerSearchRoute(app, kit);
  registerFormationRoutes(app, kit);
  if (options.mcp !== false) registerMcpRoute(app, kit);
  if (options.inspector !== false) {
    app.route('/', inspectorRoutes(kit));
    registerStaticInspector(app, options.inspector);
  }
  registerOperationsRoutes(app, kit.metrics, options.ready ?? (() => true));
  registerOpenApiDocument(app);
  return app;
}
