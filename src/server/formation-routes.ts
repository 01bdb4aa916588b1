import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { principalCaller } from '../auth/principal-caller.js';
import { canSee, resolveScope, type RequestedScope } from '../auth/principal-scope.js';
import { EngramError } from '../model/errors.js';
import type { JobState } from '../model/formation/work-queue.js';
import {
  FormationJobEnvelopeSchema,
  FormationJobPageSchema,
  FormationStatusSchema,
  HistoryPageSchema,
  RememberBodySchema,
  RememberResponseSchema,
} from './formation-schemas.js';
import { defineRoute } from './route-kit.js';
import type { AppEnv, RouteKit } from './route-types.js';
import { IdParamSchema, RequestScopeSchema, ScopeQuerySchema } from './schemas.js';

const PageQuerySchema = ScopeQuerySchema.extend({
  limit: z
    .string()
    .regex(/^\d{1,7}$/, 'limit must be a positive integer')
    .optional(),
  cursor: z.string().max(4096).optional(),
});

const JobsQuerySchema = PageQuerySchema.extend({
  states: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({ description: 'Job states; repeat or comma-separate.' }),
});

function scopeOfQuery(query: RequestedScope): RequestedScope {
  const { tenant, user, agent, session, collection } = query;
  return { tenant, user, agent, session, collection };
}

/** `POST /v1/remember`: the turns are durable when it answers; facts are formed in the background. */
function registerRemember(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/remember',
    operationId: 'remember',
    summary: 'Store a conversation as episodes and queue the formation of its facts',
    tag: 'formation',
    body: RememberBodySchema,
    response: RememberResponseSchema,
    errors: [413, 503],
    async handle({ body, principal }) {
      const scope = resolveScope(principal, body.scope, 'write');
      const result = await kit.api.remember(body.messages, {
        scope,
        origin: body.origin,
        caller: principalCaller(principal),
      });
      kit.metrics.observeWrite('remember', result.turns.length);
      return result;
    },
  });
}

/** `GET /v1/memories/{id}/history`: a collection-limited key sees the history of memories it can see. */
function registerHistory(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/memories/{id}/history',
    operationId: 'memoryHistory',
    summary: "A memory's changes, oldest first (they outlive a delete)",
    tag: 'formation',
    params: IdParamSchema,
    query: PageQuerySchema,
    response: HistoryPageSchema,
    errors: [404],
    async handle({ params, query, principal }) {
      const scope = resolveScope(principal, scopeOfQuery(query), 'read');
      if (principal.collections !== null) {
        const memory = await kit.api.get(params.id, { scope });
        if (!memory || !canSee(principal, memory)) {
          throw new EngramError('NOT_FOUND', `no memory ${params.id}`, { details: { id: params.id } });
        }
      }
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      return kit.api.history(params.id, { scope, limit, cursor: query.cursor });
    },
  });
}

function registerStatus(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/formation/status',
    operationId: 'formationStatus',
    summary: "Formation's configuration, the tenant's queue and its dead letters",
    tag: 'formation',
    query: ScopeQuerySchema,
    response: FormationStatusSchema,
    async handle({ query, principal }) {
      return kit.api.formationStatus({ scope: resolveScope(principal, scopeOfQuery(query), 'read') });
    },
  });
}

function registerJobs(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/formation/jobs',
    operationId: 'formationJobs',
    summary: "The tenant's formation jobs, with their state, attempts and last error",
    tag: 'formation',
    query: JobsQuerySchema,
    response: FormationJobPageSchema,
    async handle({ query, principal }) {
      const scope = resolveScope(principal, scopeOfQuery(query), 'read');
      const raw = query.states === undefined ? undefined : [query.states].flat().flatMap((s) => s.split(','));
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      return kit.api.formationJobs({ scope, states: raw as JobState[] | undefined, limit, cursor: query.cursor });
    },
  });
}

function registerRequeue(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/formation/jobs/{id}/requeue',
    operationId: 'requeueFormationJob',
    summary: 'Move a dead formation job back to the queue',
    tag: 'formation',
    params: IdParamSchema,
    body: z.strictObject({ scope: RequestScopeSchema.optional() }),
    response: FormationJobEnvelopeSchema,
    errors: [404],
    async handle({ params, body, principal }) {
      const scope = resolveScope(principal, body.scope, 'write');
      return { job: await kit.api.requeueFormation(params.id, { scope }) };
    },
  });
}

/** Remember, history, and the formation status, jobs and re-queueing of dead jobs. */
export function registerFormationRoutes(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  registerRemember(app, kit);
  registerHistory(app, kit);
  registerStatus(app, kit);
  registerJobs(app, kit);
  registerRequeue(app, kit);
}
