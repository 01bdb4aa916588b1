import { OpenAPIHono, z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { MemoryApi } from '../api.js';
import { canSee, requireAccess, resolveScope } from '../auth/principal-scope.js';
import { EngramError } from '../model/errors.js';
import type { SearchOptions } from '../search/search-options.js';
import type { SearchHit, SearchResult } from '../search/search-result.js';
import type { AppEnv, RouteKit } from './route-kit.js';
import { defineRoute } from './route-kit.js';
import { MemorySchema, MemoryTypeSchema, RequestScopeSchema } from './schemas.js';

/** A memory API that also runs the searcher (the in-process `Engram` does; a remote client may not). */
export interface SearchCapableApi extends MemoryApi {
  search(query: string, options: SearchOptions): Promise<SearchResult>;
  rerankerNames(): string[];
}

/** Whether `api` runs the searcher. */
export function isSearchCapable(api: MemoryApi): api is SearchCapableApi {
  const candidate = api as Partial<SearchCapableApi>;
  return typeof candidate.search === 'function' && typeof candidate.rerankerNames === 'function';
}

const WhoAmISchema = z
  .object({
    tenant: z.string(),
    keyId: z.string(),
    access: z.enum(['read', 'read-write']),
    collections: z.array(z.string()).nullable(),
    search: z.boolean().openapi({ description: 'Whether the server runs the searcher (modes, rerankers, plan).' }),
    rerankers: z.array(z.string()),
  })
  .openapi('InspectorWhoAmI');

const InspectorSearchBodySchema = z
  .strictObject({
    query: z.string(),
    scope: RequestScopeSchema.optional(),
    mode: z.enum(['fast', 'fine', 'deep']).optional(),
    types: z.array(MemoryTypeSchema).optional(),
    reranker: z.string().min(1).max(128).optional(),
    limit: z.number().int().min(1).max(100).optional().openapi({ description: 'topK of the text types. Default 10.' }),
    threshold: z.number().min(-1).max(1).optional().openapi({ description: 'Minimum relevance; lower hits are returned in `cut`. Default 0.' }),
    fastGraph: z.boolean().optional(),
  })
  .openapi('InspectorSearchRequest');

const SearchHitSchema = z.object({
  memory: MemorySchema,
  relevance: z.number(),
  collection: z.string().nullable(),
  explanation: z.object({
    paths: z.array(z.string()),
    channels: z.record(z.string(), z.number()),
    cosine: z.number(),
    bm25: z.number(),
    lexicalWeight: z.number(),
    fused: z.number(),
    rerank: z.object({ name: z.string(), score: z.number() }).optional(),
    boost: z.number().optional(),
    stage: z.number().optional(),
  }),
  rewritten: z.string().optional(),
});

const InspectorSearchResponseSchema = z
  .object({
    query: z.string(),
    threshold: z.number(),
    hits: z.array(SearchHitSchema),
    cut: z.array(SearchHitSchema).openapi({ description: 'Ranked hits below the threshold, best first.' }),
    plan: z.record(z.string(), z.unknown()),
    timings: z.record(z.string(), z.unknown()),
    collections: z.object({ searched: z.array(z.string().nullable()), denied: z.array(z.string()) }),
    degraded: z.record(z.string(), z.string()),
  })
  .openapi('InspectorSearchResponse');

/**
 * The two endpoints the memory inspector needs beyond the public API: `GET /v1/inspector/whoami`
 * (the key's tenant and rights, and which rerankers exist) and `POST /v1/inspector/search` (the
 * searcher with its full explanation, plus the hits the threshold cut). Both authenticate like
 * every other route, and the scope always comes from the key. They are served for the page and
 * kept out of `/openapi.json` (the returned app is a plain Hono app: mounting it with
 * `app.route('/', …)` adds the routes, not their OpenAPI entries).
 */
export function inspectorRoutes(kit: RouteKit): Hono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const { api } = kit;

  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/inspector/whoami',
    operationId: 'inspectorWhoAmI',
    summary: "The API key's tenant, access and collections, and the server's search features",
    tag: 'inspector',
    response: WhoAmISchema,
    async handle({ principal }) {
      const searchable = isSearchCapable(api);
      return {
        tenant: principal.tenant,
        keyId: principal.keyId,
        access: principal.access,
        collections: principal.collections,
        search: searchable,
        rerankers: searchable ? api.rerankerNames() : [],
      };
    },
  });

  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/inspector/search',
    operationId: 'inspectorSearch',
    summary: 'Run the searcher with its plan, per-stage timings, every score of every hit, and the hits the threshold cut',
    tag: 'inspector',
    body: InspectorSearchBodySchema,
    response: InspectorSearchResponseSchema,
    errors: [413],
    async handle({ body, principal, c }) {
      requireAccess(principal, 'read');
      if (!isSearchCapable(api)) {
        throw new EngramError('UNSUPPORTED', 'this server does not run the searcher; use /v1/recall');
      }
      const scope = resolveScope(principal, body.scope, 'read');
      const threshold = body.threshold ?? 0;
      // Search without a threshold, then split: the inspector shows what the threshold removed.
      const result = await api.search(body.query, {
        scope,
        mode: body.mode,
        types: body.types,
        reranker: body.reranker,
        topK: body.limit,
        fastGraph: body.fastGraph,
        threshold: Number.NEGATIVE_INFINITY,
        signal: c.req.raw.signal,
      });
      const visible = result.hits.filter((h) => canSee(principal, h.memory) || h.memory.id.startsWith('web:'));
      const hits: SearchHit[] = [];
      const cut: SearchHit[] = [];
      for (const hit of visible) (hit.relevance >= threshold ? hits : cut).push(hit);
      return {
        query: result.query,
        threshold,
        hits,
        cut,
        plan: { ...result.plan },
        timings: { ...result.timings },
        collections: result.collections,
        degraded: result.degraded,
      };
    },
  });
  return new Hono<AppEnv>().route('/', app);
}
