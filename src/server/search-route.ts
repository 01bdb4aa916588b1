import type { OpenAPIHono, z } from '@hono/zod-openapi';
import { resolveSearchScope } from '../auth/principal-scope.js';
import { EngramError } from '../model/errors.js';
import { defineRoute } from './route-kit.js';
import type { AppEnv, RouteKit } from './route-types.js';
import { SearchBodySchema, SearchResponseSchema } from './schemas.js';

/**
 * `POST /v1/search`: the served API's `search` (for an `Engram`, the multi-path searcher with its
 * model check, collection rules, usage tracking, LLM, web search and rerankers) in the key's
 * tenant. Collections outside a limited key are refused before anything is read.
 */
export function registerSearchRoute(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/search',
    operationId: 'search',
    summary: 'Search with the full searcher: plan, parallel paths and channels, rerank, dedupe, per-type buckets',
    tag: 'recall',
    body: SearchBodySchema,
    response: SearchResponseSchema,
    errors: [409, 413],
    async handle({ body, principal, c }) {
      if (kit.search === false)
        throw new EngramError('UNSUPPORTED', 'search is turned off on this server; use /v1/recall');
      const { query, scope: requested, ...options } = body;
      const scope = resolveSearchScope(principal, requested, options.collections);
      const result = await kit.api.search(query, { ...options, scope, signal: c.req.raw.signal });
      return result as unknown as z.input<typeof SearchResponseSchema>;
    },
  });
}
