import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { MemoryApi } from '../model/api.js';
import type { Principal } from '../auth/api-key.js';
import { canSee, resolveScope } from '../auth/principal-scope.js';
import { EngramError, isEngramError } from '../model/errors.js';
import type { Memory } from '../model/memory.js';
import { MEMORY_STATUSES, MEMORY_TYPES } from '../model/memory-type.js';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The memory API the tools call. */
  api: MemoryApi;
  /** Who the connection acts as: the tenant always comes from here, never from tool arguments. */
  principal: Principal;
  /** Server name announced to clients. @default 'engram' */
  name?: string | undefined;
  /** @default '0.1.0' */
  version?: string | undefined;
}

const scopeArgs = {
  tenant: z.string().optional().describe("Ignored unless given: then it must equal the connection's tenant."),
  user: z.string().optional().describe('Narrow to this user.'),
  agent: z.string().optional().describe('Narrow to this agent.'),
  session: z.string().optional().describe('Narrow to this session.'),
  collection: z.string().optional().describe('Narrow to this collection.'),
};

type ScopeArgs = { tenant?: string | undefined; user?: string | undefined; agent?: string | undefined; session?: string | undefined; collection?: string | undefined };

function compact(memory: Memory): Record<string, unknown> {
  return {
    id: memory.id,
    text: memory.text,
    type: memory.type,
    tags: memory.tags,
    key: memory.key,
    statedAt: memory.statedAt,
    createdAt: memory.createdAt,
    scope: memory.scope,
  };
}

function ok(data: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }] };
}

function failure(error: unknown): CallToolResult {
  const engramError = isEngramError(error) ? error : new EngramError('INTERNAL', 'internal error');
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: engramError.toJSON() }) }] };
}

async function guarded(fn: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return ok(await fn());
  } catch (error) {
    return failure(error);
  }
}

/**
 * An MCP server exposing memory as tools — `add_memory`, `search_memories`, `list_memories`,
 * `delete_memory` — under the same tenant rules as the HTTP API. Connect it to any transport.
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const { api, principal } = options;
  const server = new McpServer({ name: options.name ?? 'engram', version: options.version ?? '0.1.0' });
  const scopeOf = (args: ScopeArgs, mode: 'read' | 'write') =>
    resolveScope(principal, { tenant: args.tenant, user: args.user, agent: args.agent, session: args.session, collection: args.collection }, mode);

  server.registerTool(
    'add_memory',
    {
      description: 'Store a memory (a fact, preference or note) so it can be recalled later.',
      inputSchema: {
        text: z.string().describe('The memory, as a self-contained sentence.'),
        type: z.enum(MEMORY_TYPES).optional(),
        tags: z.array(z.string()).optional(),
        key: z.string().optional().describe('A short key naming what the memory is about.'),
        statedAt: z.string().optional().describe('ISO-8601 date when it was said.'),
        ...scopeArgs,
      },
    },
    (args) =>
      guarded(async () => {
        const scope = scopeOf(args, 'write');
        const memory = await api.add({ text: args.text, type: args.type, tags: args.tags, key: args.key, statedAt: args.statedAt }, { scope });
        return { memory: compact(memory) };
      }),
  );

  server.registerTool(
    'search_memories',
    {
      description: 'Find the stored memories most relevant to a query, best first, with scores.',
      inputSchema: {
        query: z.string(),
        limit: z.number().int().optional().describe('Number of results (default 5).'),
        threshold: z.number().optional().describe('Minimum score (default 0.1).'),
        types: z.array(z.enum(MEMORY_TYPES)).optional(),
        ...scopeArgs,
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const scope = scopeOf(args, 'read');
        const result = await api.recall(args.query, { scope, limit: args.limit, threshold: args.threshold, types: args.types });
        return { hits: result.hits.map((h) => ({ ...compact(h.memory), score: h.score })) };
      }),
  );

  server.registerTool(
    'list_memories',
    {
      description: 'List stored memories, oldest first, with filters and a cursor for the next page.',
      inputSchema: {
        limit: z.number().int().optional().describe('Page size (default 50).'),
        cursor: z.string().optional(),
        types: z.array(z.enum(MEMORY_TYPES)).optional(),
        statuses: z.array(z.enum(MEMORY_STATUSES)).optional(),
        tags: z.array(z.string()).optional(),
        key: z.string().optional(),
        ...scopeArgs,
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const scope = scopeOf(args, 'read');
        const page = await api.list({
          scope,
          limit: args.limit,
          cursor: args.cursor,
          types: args.types,
          statuses: args.statuses,
          tags: args.tags,
          key: args.key,
        });
        return { items: page.items.map(compact), nextCursor: page.nextCursor };
      }),
  );

  server.registerTool(
    'delete_memory',
    {
      description: 'Delete a memory by id, for good.',
      inputSchema: { id: z.string(), ...scopeArgs },
      annotations: { destructiveHint: true },
    },
    (args) =>
      guarded(async () => {
        const scope = scopeOf(args, 'write');
        if (principal.collections !== null) {
          const memory = await api.get(args.id, { scope });
          if (!memory || !canSee(principal, memory)) return { deleted: false };
        }
        return { deleted: await api.delete(args.id, { scope }) };
      }),
  );

  return server;
}
