import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Principal } from '../auth/api-key.js';
import type { MemoryApi } from '../model/api.js';
import { EngramError, isEngramError } from '../model/errors.js';
import { validationError } from '../wire/validation-error.js';

/** What a tool call acts with: the API and who the connection is. */
export interface ToolContext {
  api: MemoryApi;
  /** The tenant always comes from here, never from tool arguments. */
  principal: Principal;
  /** False when the server turned search off. */
  search: boolean;
}

/** A tool as written: a strict argument schema and what it does with checked arguments. */
export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  description: string;
  input: S;
  annotations?: ToolAnnotations | undefined;
  run(args: z.output<S>, context: ToolContext): Promise<unknown>;
}

/** A tool as served: its listing and a call that always answers with a tool result. */
export interface McpTool {
  listing: Tool;
  call(args: unknown, context: ToolContext): Promise<CallToolResult>;
}

function ok(data: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }] };
}

/** The REST error envelope `{ error: { code, message, details } }` as a tool error. */
export function toolFailure(error: unknown): CallToolResult {
  const engramError = isEngramError(error) ? error : new EngramError('INTERNAL', 'internal error');
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: engramError.toJSON() }) }] };
}

/**
 * Serves a tool. Arguments are checked here rather than by the SDK so that a mistake answers
 * with the error envelope and the code REST and the library use (the SDK would answer a
 * protocol-style message without a code); MCP asks for input errors as tool results.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): McpTool {
  const inputSchema = z.toJSONSchema(spec.input, { io: 'input', target: 'draft-7' }) as Tool['inputSchema'];
  return {
    listing: {
      name: spec.name,
      description: spec.description,
      inputSchema,
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
    },
    async call(args, context) {
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success) return toolFailure(validationError(parsed.error, 'arguments'));
      try {
        return ok(await spec.run(parsed.data, context));
      } catch (error) {
        return toolFailure(error);
      }
    },
  };
}
