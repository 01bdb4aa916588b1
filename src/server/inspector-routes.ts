import { OpenAPIHono, z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { KEY_ACCESS_LEVELS } from '../auth/api-key.js';
import type { AppEnv, RouteKit } from './route-types.js';
import { defineRoute } from './route-kit.js';

const WhoAmISchema = z
  .object({
    tenant: z.string(),
    keyId: z.string(),
    access: z.enum(KEY_ACCESS_LEVELS),
    collections: z.array(z.string()).nullable(),
    search: z.boolean().openapi({ description: 'Whether `/v1/search` is served.' }),
    rerankers: z.array(z.string()).openapi({ description: 'Reranker names `/v1/search` accepts.' }),
  })
  .openapi('InspectorWhoAmI');

/**
 * The one endpoint the memory inspector needs beyond the public API: `GET /v1/inspector/whoami`,
 * the key's tenant, access and collections, and what `/v1/search` offers (so the page can show
 * who it is acting as and fill its reranker list). It authenticates like every other route. It
 * is served for the page and kept out of `/openapi.json`: the returned app is a plain Hono app,
 * so mounting it with `app.route('/', …)` adds the route, not its OpenAPI entry.
 */
export function inspectorRoutes(kit: RouteKit): Hono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const rerankers = kit.search === false ? [] : [...kit.search.rerankers];
  defineRoute(app, kit, {
    method: 'get',
    path: '/v1/inspector/whoami',
    operationId: 'inspectorWhoAmI',
    summary: "The API key's tenant, access and collections, and the server's search features",
    tag: 'inspector',
    response: WhoAmISchema,
    async handle({ principal }) {
      return {
        tenant: principal.tenant,
        keyId: principal.keyId,
        access: principal.access,
        collections: principal.collections,
        search: kit.search !== false,
        rerankers,
      };
    },
  });
  return new Hono<AppEnv>().route('/', app);
}
