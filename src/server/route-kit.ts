import { createRoute, type OpenAPIHono, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Principal } from '../auth/api-key.js';
import type { KeyVerifier } from '../auth/key-store.js';
import { EngramError } from '../model/errors.js';
import { validationError } from '../wire/validation-error.js';
import type { AppEnv, RouteKit } from './route-types.js';
import { ErrorSchema } from './schemas.js';

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

/** Deepest nesting of a request body; deeper bodies are rejected before anything walks them. */
export const MAX_BODY_DEPTH = 64;

/** Nesting depth of a parsed JSON value, computed without recursion (stops past `limit`). */
function jsonDepth(root: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== 'object' || value === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') throw new EngramError('INVALID_INPUT', 'the request body is empty; send a JSON object', { details: { in: 'body' } });
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (cause) {
    throw new EngramError('INVALID_INPUT', `malformed JSON in the request body: ${(cause as Error).message}`, {
      details: { in: 'body' },
    });
  }
  if (jsonDepth(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    throw new EngramError('INVALID_INPUT', `the request body is nested deeper than ${MAX_BODY_DEPTH} levels`, {
      details: { in: 'body', limit: MAX_BODY_DEPTH },
    });
  }
  return value;
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
