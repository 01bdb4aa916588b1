// The low-level Server (not McpServer): McpServer checks tool arguments itself and answers a
// mistake without an error code; here every tool checks its own (see defineTool).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/api-key.js';
import type { MemoryApi } from '../model/api.js';
import { EngramError } from '../model/errors.js';
import { toolFailure, type ToolContext } from './mcp-tool.js';
import { MEMORY_TOOL_NAMES, MEMORY_TOOLS } from './memory-tools.js';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The memory API the tools call. */
  api: MemoryApi;
  /** Who the connection acts as: the tenant always comes from here, never from tool arguments. */
  principal: Principal;
  /** Serve `search_memories` (false answers UNSUPPORTED, as `/v1/search` does when turned off). @default true */
  search?: boolean | undefined;
  /** Server name announced to clients. @default 'engram' */
  name?: string | undefined;
  /** @default '0.1.0' */
  version?: string | undefined;
}

/**
 * An MCP server exposing memory as tools — `add_memory`, `search_memories`, `list_memories`,
 * `delete_memory` — under the same tenant rules and error codes as the HTTP API. Connect it to
 * any transport.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: options.name ?? 'engram', version: options.version ?? '0.1.0' },
    { capabilities: { tools: {} } },
  );
  const context: ToolContext = { api: options.api, principal: options.principal, search: options.search ?? true };
  const listings = MEMORY_TOOLS.map((t) => t.listing);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listings }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = MEMORY_TOOLS.find((t) => t.listing.name === request.params.name);
    if (!tool)
      return toolFailure(
        new EngramError('NOT_FOUND', `no tool ${request.params.name}; tools: ${MEMORY_TOOL_NAMES.join(', ')}`),
      );
    return tool.call(request.params.arguments, context);
  });
  return server;
}
