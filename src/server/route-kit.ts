import { createRoute, type OpenAPIHono, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { MemoryApi } from '../api.js';
import type { Principal } from '../auth/api-key.js';
import type { KeyVerifier } from '../auth/key-store.js';
import { EngramError, type EngramErrorCode } from '../model/errors.js';
import type { ServerLimits } from './create-app.js';
import { ErrorSchema } from './schemas.js';
import type { ServerMetrics } from './server-metrics.js';
import { validationError } from './validation-error.js';

/** Per-request variables of the Hono app. */
export interface AppEnv {
  Variables: {
    reqId: string;
    /** performance.now() when the request arrived. */
    startedAt: number;
    /** Route template for metrics and logs. */
    route: string;
    principal?: Principal | undefined;
    errorCode?: EngramErrorCode | undefined;
  };
}

/** What route modules need. */
export interface RouteKit {
  api: MemoryApi;
  keys: KeyVerifier;
  limits: ServerLimits;
  metrics: ServerMetrics;
  validateResponses: boolean;
}

/** The principal of a request's `Authorization: Bearer <key>`, or UNAUTHORIZED. */
export function authenticate(c: Context<AppEnv>, keys: KeyVerifier): Principal {
  const header = c.req.header('authorization');
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw new EngramError('UNAUTHORIZED', 'missing API key: send `Authorization: Bearer <key>`');
  }
  const principal = keys.verify(match[1] as string);
  if (!principal) throw new EngramError('UNAUTHORIZED', 'unknown or revoked API key');
  c.set('principal', principal);
  return principal;
}

type AnySchema = z.ZodType;

/** One endpoint: schemas (validation + OpenAPI) and a handler that returns the response body. */
export interface RouteSpec<B extends AnySchema, Q extends AnySchema, P extends AnySchema, R extends AnySchema> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path, e.g. `/v1/memories/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  response: R;
  /** @default 200 */
  status?: 200 | 201;
  /** Error statuses documented besides 400/401/403. */
  errors?: number[];
  handle(input: { body: z.output<B>; query: z.output<Q>; params: z.output<P>; principal: Principal; c: Context<AppEnv> }): Promise<z.input<R>>;
}

const ERROR_CONTENT = { 'application/json': { schema: ErrorSchema } };

function parseJson(text: string): unknown {
  if (text.trim() === '') throw new EngramError('INVALID_INPUT', 'the request body is empty; send a JSON object', { details: { in: 'body' } });
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new EngramError('INVALID_INPUT', `malformed JSON in the request body: ${(cause as Error).message}`, {
      details: { in: 'body' },
    });
  }
}

function queryObject(c: Context<AppEnv>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return out;
}

/**
 * Registers an endpoint: documents it in the OpenAPI registry and serves it with
 * authentication, JSON parsing, strict validation and stable error codes.
 */
export function defineRoute<B extends AnySchema, Q extends AnySchema, P extends AnySchema, R extends AnySchema>(
  app: OpenAPIHono<AppEnv>,
  kit: RouteKit,
  spec: RouteSpec<B, Q, P, R>,
): void {
  const status = spec.status ?? 200;
  const errorResponses: Record<string, { description: string; content: typeof ERROR_CONTENT }> = {};
  for (const s of [400, 401, 403, ...(spec.errors ?? [])]) errorResponses[String(s)] = { description: 'Error', content: ERROR_CONTENT };
  app.openAPIRegistry.registerPath(
    createRoute({
      method: spec.method,
      path: spec.path,
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      security: [{ apiKey: [] }],
      request: {
        ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
        ...(spec.query ? { query: spec.query as unknown as z.ZodObject } : {}),
        ...(spec.params ? { params: spec.params as unknown as z.ZodObject } : {}),
      },
      responses: {
        [status]: { description: 'OK', content: { 'application/json': { schema: spec.response } } },
        ...errorResponses,
      },
    }),
  );
  const honoPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
  app.on(spec.method.toUpperCase(), honoPath, async (c) => {
    c.set('route', spec.path);
    const principal = authenticate(c, kit.keys);
    const validate = <S extends AnySchema>(schema: S | undefined, value: unknown, where: 'body' | 'query' | 'param'): z.output<S> => {
      if (!schema) return undefined as z.output<S>;
      const result = schema.safeParse(value);
      if (!result.success) throw validationError(result.error, where);
      return result.data as z.output<S>;
    };
    const params = validate(spec.params, c.req.param(), 'param');
    const query = validate(spec.query, queryObject(c), 'query');
    const body = spec.body ? validate(spec.body, parseJson(await c.req.text()), 'body') : (undefined as z.output<B>);
    const result = await spec.handle({ body, query, params, principal, c });
    if (kit.validateResponses) {
      const checked = spec.response.safeParse(result);
      if (!checked.success) {
        throw new EngramError('INTERNAL', `response of ${spec.operationId} does not match its schema`, {
          details: { issues: checked.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message })) },
        });
      }
    }
    return c.json(result as Record<string, unknown>, status);
  });
}
