import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './route-types.js';
import { ErrorSchema } from './schemas.js';

/**
 * `/openapi.json`: the OpenAPI 3.1 document of every route registered so far (built on the first
 * request), with the bearer-key security scheme and the shared error envelope.
 */
export function registerOpenApiDocument(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An Engram API key (`engram keys create`). The tenant of every request comes from the key.',
  });
  app.openAPIRegistry.register('Error', ErrorSchema);
  let document: unknown;
  app.get('/openapi.json', (c) => {
    c.set('route', '/openapi.json');
    document ??= app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Engram',
        version: '0.1.0',
        description:
          'Memory for LLM applications. Errors are `{ error: { code, message, details } }` with a stable code.',
      },
    });
    return c.json(document as Record<string, unknown>);
  });
}
