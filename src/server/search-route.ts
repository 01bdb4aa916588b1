import type { OpenAPIHono, z } from '@hono/zod-openapi';
import { resolveScope } from '../auth/principal-scope.js';
import { EngramError } from '../model/errors.js';
import { DEFAULT_LIMITS, validateText } from '../model/validate.js';
import { Searcher, type SearcherDeps } from '../search/searcher.js';
import type { SearchOptions } from '../model/search-options.js';
import type { AppEnv, RouteKit } from './route-kit.js';
import { defineRoute } from './route-kit.js';
import { SearchBodySchema, SearchResponseSchema } from './schemas.js';

/** What the server builds a searcher from; `canRead` is always the key's collection rule. */
export type SearchDeps = Omit<SearcherDeps, 'canRead'>;

/**
 * `POST /v1/search`: the seed-003 searcher (plan, paths, channels, rerank, post-processing) in
 * the key's tenant. Collections outside a limited key are never read. Without search
 * dependencies (e.g. a server in front of a remote API) it answers UNSUPPORTED.
 */
export function registerSearchRoute(app: OpenAPIHono<AppEnv>, kit: RouteKit, deps: SearchDeps | undefined): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/search',
    operationId: 'search',
    summary: 'Search with the full searcher: plan, parallel paths and channels, rerank, dedupe, per-type buckets',
    tag: 'recall',
    body: SearchBodySchema,
    response: SearchResponseSchema,
    errors: [413],
    async handle({ body, principal, c }) {
      if (!deps) throw new EngramError('UNSUPPORTED', 'this server has no searcher; use /v1/recall');
      const query = validateText(body.query, DEFAULT_LIMITS.maxQueryLength, 'query');
      const allowed = principal.collections;
      for (const collection of body.collections ?? []) {
        if (allowed !== null && !allowed.includes(collection)) {
          throw new EngramError('FORBIDDEN', `this API key cannot access collection ${collection}`, { details: { field: 'collections', allowed } });
        }
      }
      const scope = resolveScope(principal, { ...body.scope, collection: body.scope?.collection ?? body.collections?.[0] }, 'read');
      const searcher = new Searcher({ ...deps, canRead: (_scope, collection) => allowed === null || allowed.includes(collection) });
      if (body.reranker !== undefined && !searcher.rerankerNames().includes(body.reranker)) {
        throw new EngramError('INVALID_INPUT', `unknown reranker ${body.reranker}; available: ${searcher.rerankerNames().join(', ')}`, {
          details: { field: 'reranker', available: searcher.rerankerNames() },
        });
      }
      const { scope: _requested, query: _query, ...rest } = body;
      const options: SearchOptions = { ...rest, scope, signal: c.req.raw.signal };
      const result = await searcher.search(query, options);
      return result as unknown as z.input<typeof SearchResponseSchema>;
    },
  });
}
