import { z } from 'zod';
import { principalCaller } from '../auth/principal-caller.js';
import { canSee, resolveScope, resolveSearchScope } from '../auth/principal-scope.js';
import { EngramError } from '../model/errors.js';
import type { Memory } from '../model/memory.js';
import { MEMORY_STATUSES } from '../model/memory-type.js';
import { MemoryTypeSchema, wireSearchOptionFields } from '../wire/search-option-fields.js';
import { FORMATION_TOOLS } from './formation-tools.js';
import { scopeArgs, splitScope } from './scope-args.js';
import { defineTool, type McpTool } from './mcp-tool.js';

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

const addMemory = defineTool({
  name: 'add_memory',
  description: 'Store a memory (a fact, preference or note) so it can be recalled later.',
  input: z.strictObject({
    text: z.string().describe('The memory, as a self-contained sentence.'),
    type: MemoryTypeSchema.optional(),
    tags: z.array(z.string()).optional(),
    key: z.string().optional().describe('A short key naming what the memory is about.'),
    statedAt: z.string().optional().describe('ISO-8601 date when it was said.'),
    safety: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'Tighten the write-safety policy for this memory only, e.g. {"actions":{"email":"mask"}}; it can never loosen the server\'s.',
      ),
    ...scopeArgs,
  }),
  async run(args, { api, principal }) {
    const { requested, rest } = splitScope(args);
    const { safety, ...input } = rest;
    const memory = await api.add(input, {
      scope: resolveScope(principal, requested, 'write'),
      caller: principalCaller(principal),
      safety,
    });
    return { memory: compact(memory) };
  },
});

const searchMemories = defineTool({
  name: 'search_memories',
  description:
    'Find the stored memories most relevant to a query, best first, with scores (the multi-path searcher; `topK` hits, default 10).',
  input: z.strictObject({ query: z.string(), ...scopeArgs, ...wireSearchOptionFields }),
  annotations: { readOnlyHint: true },
  async run(args, { api, principal, search }) {
    if (!search) throw new EngramError('UNSUPPORTED', 'search is turned off on this server');
    const { requested, rest } = splitScope(args);
    const { query, ...options } = rest;
    const scope = resolveSearchScope(principal, requested, options.collections);
    const result = await api.search(query, { ...options, scope });
    const hits = result.hits.map((h) => ({ ...compact(h.memory), score: h.relevance, collection: h.collection }));
    // Withheld memories are named, never shown: their text (and the phrases of the reason) would instruct the agent.
    const withheld = result.withheld.map((h) => ({ id: h.memory.id, rules: h.explanation.flagged?.rules ?? [] }));
    const out = withheld.length > 0 ? { hits, withheld } : { hits };
    return Object.keys(result.degraded).length > 0 ? { ...out, degraded: result.degraded } : out;
  },
});

const listMemories = defineTool({
  name: 'list_memories',
  description: 'List stored memories, oldest first, with filters and a cursor for the next page.',
  input: z.strictObject({
    limit: z.number().int().optional().describe('Page size (default 50).'),
    cursor: z.string().optional(),
    types: z.array(MemoryTypeSchema).optional(),
    statuses: z.array(z.enum(MEMORY_STATUSES)).optional(),
    tags: z.array(z.string()).optional(),
    key: z.string().optional(),
    ...scopeArgs,
  }),
  annotations: { readOnlyHint: true },
  async run(args, { api, principal }) {
    const { requested, rest } = splitScope(args);
    const page = await api.list({ ...rest, scope: resolveScope(principal, requested, 'read') });
    return { items: page.items.map(compact), nextCursor: page.nextCursor };
  },
});

const deleteMemory = defineTool({
  name: 'delete_memory',
  description: 'Delete a memory by id, for good.',
  input: z.strictObject({ id: z.string(), ...scopeArgs }),
  annotations: { destructiveHint: true },
  async run(args, { api, principal }) {
    const { requested, rest } = splitScope(args);
    const scope = resolveScope(principal, requested, 'write');
    if (principal.collections !== null) {
      const memory = await api.get(rest.id, { scope });
      if (!memory || !canSee(principal, memory)) return { deleted: false };
    }
    return { deleted: await api.delete(rest.id, { scope, caller: principalCaller(principal) }) };
  },
});

/** The memory tools, under the same tenant rules as the HTTP API. */
export const MEMORY_TOOLS: readonly McpTool[] = [
  addMemory,
  searchMemories,
  listMemories,
  deleteMemory,
  ...FORMATION_TOOLS,
];

export const MEMORY_TOOL_NAMES: readonly string[] = MEMORY_TOOLS.map((t) => t.listing.name);
