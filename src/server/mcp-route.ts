import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createMcpServer } from '../mcp/create-mcp-server.js';
import { MEMORY_TOOL_NAMES } from '../mcp/memory-tools.js';
import { EngramError } from '../model/errors.js';
import { authenticate } from './route-kit.js';
import type { AppEnv, RouteKit } from './route-types.js';

/**
 * MCP over Streamable HTTP at `/mcp`, stateless (a fresh MCP server per request), authenticated
 * by the same API keys as the REST API. JSON responses, no server-initiated streams.
 */
export function registerMcpRoute(app: OpenAPIHono<AppEnv>, kit: RouteKit): void {
  app.all('/mcp', async (c) => {
    c.set('route', '/mcp');
    const principal = authenticate(c, kit.keys);
    if (c.req.method !== 'POST') {
      // Stateless: no standalone SSE stream (GET) and no session to end (DELETE). MCP clients
      // treat 405 on GET as "no server-initiated messages".
      c.set('errorCode', 'UNSUPPORTED');
      const error = new EngramError('UNSUPPORTED', 'this MCP endpoint is stateless: send JSON-RPC with POST');
      return c.json({ error: error.toJSON() }, 405, { allow: 'POST' });
    }
    const server = createMcpServer({ api: kit.api, principal, search: kit.search !== false });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/mcp',
    summary: 'Model Context Protocol (Streamable HTTP, stateless, JSON responses)',
    description: `Tools ${MEMORY_TOOL_NAMES.join(', ')}; the tenant comes from the API key.`,
    tags: ['mcp'],
    security: [{ apiKey: [] }],
    responses: { 200: { description: 'JSON-RPC response' } },
  });
}
