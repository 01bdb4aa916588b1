import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RecallOptions, RecallResult } from '../model/api.js';
import { formatContextBlock } from '../inject/context-block.js';
import { providers } from '../inject/providers/registry.js';
import type { Principal } from '../auth/api-key.js';
import { resolveScope, type RequestedScope } from '../auth/principal-scope.js';
import type { AppEnv, RouteKit } from './route-types.js';
import { defineRoute } from './route-kit.js';
import { InjectBodySchema, InjectResponseSchema, RecallBodySchema, RecallResponseSchema } from './schemas.js';

interface RecallFields {
  scope?: RequestedScope | undefined;
  limit?: number | undefined;
  threshold?: number | undefined;
  profile?: 'engram' | 'seed' | undefined;
  types?: RecallOptions['types'];
  lexicalWeight?: number | undefined;
  lexicalWeightShort?: number | undefined;
  vector?: number[] | undefined;
  includeFlagged?: boolean | undefined;
  asOf?: string | undefined;
  includeSuperseded?: boolean | undefined;
}

function recallOptions(principal: Principal, body: RecallFields, signal: AbortSignal): RecallOptions {
  return {
    scope: resolveScope(principal, body.scope, 'read'),
    limit: body.limit,
    threshold: body.threshold,
    profile: body.profile,
    types: body.types,
    lexicalWeight: body.lexicalWeight,
    lexicalWeightShort: body.lexicalWeightShort,
    vector: body.vector,
    includeFlagged: body.includeFlagged,
    asOf: body.asOf,
    includeSuperseded: body.includeSuperseded,
    signal,
  };
}

/** `POST /v1/recall`: the core recall; `explain` adds the server's own stage timings. */
function registerRecall(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/recall',
    operationId: 'recall',
    summary: 'The memories most relevant to a query, best first, each with the explanation of its score',
    tag: 'recall',
    body: RecallBodySchema,
    response: RecallResponseSchema,
    errors: [409, 413],
    async handle({ body, principal, c }) {
      const parsedAt = performance.now();
      const options = recallOptions(principal, body, c.req.raw.signal);
      const result: RecallResult & { server?: { parseMs: number; recallMs: number; totalMs: number } } =
        await kit.api.recall(body.query, options);
      const recallMs = performance.now() - parsedAt;
      kit.metrics.observeRecall(result.timings);
      if (body.explain) {
        const startedAt = c.get('startedAt');
        const parseMs = parsedAt - startedAt;
        result.server = { parseMs, recallMs, totalMs: performance.now() - startedAt };
        c.header(
          'server-timing',
          `parse;dur=${parseMs.toFixed(2)}, embed;dur=${result.timings.embedMs.toFixed(2)}, dense;dur=${result.timings.denseMs.toFixed(2)}, ` +
            `lexical;dur=${result.timings.lexicalMs.toFixed(2)}, rank;dur=${result.timings.rankMs.toFixed(2)}, recall;dur=${recallMs.toFixed(2)}`,
        );
      }
      return result;
    },
  });
}

/** `POST /v1/inject`: recall for the request's last user message and inject the context block. */
function registerInject(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  defineRoute(app, kit, {
    method: 'post',
    path: '/v1/inject',
    operationId: 'inject',
    summary: "Recall for the request's last user message and return the request with the context block in place",
    tag: 'recall',
    body: InjectBodySchema,
    response: InjectResponseSchema,
    errors: [409, 413],
    async handle({ body, principal, c }) {
      const adapter = providers[body.provider];
      const options = recallOptions(principal, body, c.req.raw.signal);
      const query = adapter.extractQuery(body.request);
      if (query === null || query.trim() === '') {
        return { request: body.request, injected: false, query, hits: [], withheld: [], block: null };
      }
      const result = await kit.api.recall(query, options);
      kit.metrics.observeRecall(result.timings);
      const withheld = result.withheld.map((h) => ({ id: h.memory.id, reason: h.explanation.flagged?.reason ?? '' }));
      const block = formatContextBlock(result.hits, body.block);
      if (block === null) return { request: body.request, injected: false, query, hits: [], withheld, block: null };
      return {
        request: adapter.injectBlock(body.request, block.text),
        injected: true,
        query,
        hits: block.included.map((h) => ({ id: h.memory.id, score: h.score })),
        withheld,
        block: block.text,
      };
    },
  });
}

/** Recall and inject. */
export function registerRecallRoutes(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  registerRecall(app, kit);
  registerInject(app, kit);
}
