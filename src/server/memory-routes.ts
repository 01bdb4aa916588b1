import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Principal } from '../auth/api-key.js';
import { EngramError } from '../model/errors.js';
// Metadata is typed `unknown` on the wire; the facade checks it is JSON (depth, size, finite numbers).
import type { Memory, MemoryInput, MemoryPatch } from '../model/memory.js';
import type { MemoryStatus, MemoryType } from '../model/memory-type.js';
import { principalCaller } from '../auth/principal-caller.js';
import { canSee, resolveScope, type AccessMode, type RequestedScope } from '../auth/principal-scope.js';
import type { AppEnv, RouteKit } from './route-types.js';
import { defineRoute } from './route-kit.js';
import {
  BatchBodySchema,
  CreateMemoryBodySchema,
  DeleteResultSchema,
  IdParamSchema,
  ListQuerySchema,
  MemoriesEnvelopeSchema,
  MemoryEnvelopeSchema,
  PageSchema,
  PatchBodySchema,
  ScopeQuerySchema,
  StatsQuerySchema,
  StatsSchema,
} from './schemas.js';

/** `?a=x&a=y` or `?a=x,y` → ['x', 'y']. */
function listParam(value: string | string[] | undefined, split: boolean): string[] | undefined {
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value : [value];
  return split ? values.flatMap((v) => v.split(',')).filter((v) => v !== '') : values;
}

type FilterQuery = Partial<Record<'types' | 'statuses' | 'tags' | 'ids', string | string[]>> & {
  key?: string | undefined;
};

/** The list/stats filter fields of a query string (types and statuses may be comma separated). */
function filterOfQuery(query: FilterQuery) {
  return {
    types: listParam(query.types, true) as MemoryType[] | undefined,
    statuses: listParam(query.statuses, true) as MemoryStatus[] | undefined,
    tags: listParam(query.tags, false),
    key: query.key,
    ids: listParam(query.ids, false),
  };
}

function scopeOfQuery(query: RequestedScope): RequestedScope {
  return {
    tenant: query.tenant,
    user: query.user,
    agent: query.agent,
    session: query.session,
    collection: query.collection,
  };
}

/**
 * Loads a memory the principal may act on, or throws NOT_FOUND: ids of other tenants and of
 * collections outside a limited key look exactly like missing ids.
 */
async function visibleMemory(
  kit: RouteKit,
  principal: Principal,
  id: string,
  requested: RequestedScope | undefined,
  mode: AccessMode,
): Promise<Memory> {
  const scope = resolveScope(principal, requested, mode);
  const memory = await kit.api.get(id, { scope });
  if (!memory || !canSee(principal, memory)) {
    throw new EngramError('NOT_FOUND', `no memory ${id}`, { details: { id } });
  }
  return memory;
}

/** `POST /v1/memories`: one memory into the key's tenant. */
function registerCreate(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/memories',
    operationId: 'createMemory',
    summary: 'Add one memory',
    tag: 'memories',
    body: CreateMemoryBodySchema,
    response: MemoryEnvelopeSchema,
    status: 201,
    errors: [409, 413, 422],
    async handle({ body, principal }) {
      const scope = resolveScope(principal, body.scope, 'write');
      const memory = await kit.api.add(body.memory as MemoryInput, { scope, caller: principalCaller(principal), safety: body.safety });
      kit.metrics.observeWrite('add', 1);
      return { memory };
    },
  });
}

/** `POST /v1/memories/batch`: all or none, at most `limits.maxBatch`. */
function registerBatchImport(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/memories/batch',
    operationId: 'importMemories',
    summary: 'Add many memories, all or none',
    tag: 'memories',
    body: BatchBodySchema,
    response: MemoriesEnvelopeSchema,
    status: 201,
    errors: [409, 413, 422],
    async handle({ body, principal }) {
      const scope = resolveScope(principal, body.scope, 'write');
      if (body.memories.length > kit.limits.maxBatch) {
        throw new EngramError(
          'PAYLOAD_TOO_LARGE',
          `a batch holds at most ${kit.limits.maxBatch} memories; got ${body.memories.length}`,
          {
            details: { field: 'memories', limit: kit.limits.maxBatch, got: body.memories.length },
          },
        );
      }
      const memories = await kit.api.addMany(body.memories as MemoryInput[], {
        scope,
        caller: principalCaller(principal),
        safety: body.safety,
      });
      kit.metrics.observeWrite('add', memories.length);
      return { memories };
    },
  });
}

/** `GET /v1/memories/{id}`: NOT_FOUND for ids the key may not see. */
function registerGet(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/memories/{id}',
    operationId: 'getMemory',
    summary: 'Get one memory',
    tag: 'memories',
    params: IdParamSchema,
    query: ScopeQuerySchema,
    response: MemoryEnvelopeSchema,
    errors: [404],
    async handle({ params, query, principal }) {
      return { memory: await visibleMemory(kit, principal, params.id, scopeOfQuery(query), 'read') };
    },
  });
}

/** `PATCH /v1/memories/{id}`: a new text is re-embedded. */
function registerUpdate(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'patch',
    path: '/v1/memories/{id}',
    operationId: 'updateMemory',
    summary: 'Change a memory (a new text is re-embedded)',
    tag: 'memories',
    params: IdParamSchema,
    body: PatchBodySchema,
    response: MemoryEnvelopeSchema,
    errors: [404, 413, 422],
    async handle({ params, body, principal }) {
      const scope = resolveScope(principal, body.scope, 'write');
      if (principal.collections !== null) await visibleMemory(kit, principal, params.id, body.scope, 'write');
      const memory = await kit.api.update(params.id, body.patch as MemoryPatch, {
        scope,
        caller: principalCaller(principal),
        safety: body.safety,
      });
      kit.metrics.observeWrite('update', 1);
      return { memory };
    },
  });
}

/** `DELETE /v1/memories/{id}`: `deleted: false` for ids the key may not see. */
function registerDelete(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'delete',
    path: '/v1/memories/{id}',
    operationId: 'deleteMemory',
    summary: 'Delete a memory for good',
    tag: 'memories',
    params: IdParamSchema,
    query: ScopeQuerySchema,
    response: DeleteResultSchema,
    async handle({ params, query, principal }) {
      const scope = resolveScope(principal, scopeOfQuery(query), 'write');
      if (principal.collections !== null) {
        const memory = await kit.api.get(params.id, { scope });
        if (!memory || !canSee(principal, memory)) return { deleted: false };
      }
      const deleted = await kit.api.delete(params.id, { scope, caller: principalCaller(principal) });
      kit.metrics.observeWrite('delete', deleted ? 1 : 0);
      return { deleted };
    },
  });
}

/** `GET /v1/memories`: filters and cursor paging. */
function registerList(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/memories',
    operationId: 'listMemories',
    summary: 'List memories with filters and cursor paging',
    tag: 'memories',
    query: ListQuerySchema,
    response: PageSchema,
    async handle({ query, principal }) {
      const scope = resolveScope(principal, scopeOfQuery(query), 'read');
      return kit.api.list({
        scope,
        ...filterOfQuery(query),
        limit: query.limit === undefined ? undefined : Number(query.limit),
        cursor: query.cursor,
        order: query.order,
        direction: query.direction,
      });
    },
  });
}

/** `GET /v1/stats`: counts by type, status and model. */
function registerStats(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/stats',
    operationId: 'memoryStats',
    summary: 'Count memories by type, status and embedding model',
    tag: 'memories',
    query: StatsQuerySchema,
    response: StatsSchema,
    async handle({ query, principal }) {
      const scope = resolveScope(principal, scopeOfQuery(query), 'read');
      return kit.api.stats({ scope, ...filterOfQuery(query) });
    },
  });
}

/** Create, batch import, get, update, delete, list and stats. */
export function registerMemoryRoutes(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  registerCreate(app, kit);
  registerBatchImport(app, kit);
  registerGet(app, kit);
  registerUpdate(app, kit);
  registerDelete(app, kit);
  registerList(app, kit);
  registerStats(app, kit);
}
