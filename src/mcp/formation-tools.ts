import { z } from 'zod';
import { principalCaller } from '../auth/principal-caller.js';
import { canSee, resolveScope } from '../auth/principal-scope.js';
import { EngramError } from '../model/errors.js';
import { TURN_ROLES } from '../model/formation/episode.js';
import { defineTool, type McpTool } from './mcp-tool.js';
import { scopeArgs, splitScope } from './scope-args.js';

const turn = z.strictObject({
  role: z.enum(TURN_ROLES),
  text: z.string().describe('What was said.'),
  speaker: z.string().optional().describe('Who said it, e.g. a name.'),
  session: z.string().optional().describe("The conversation's id (default: the session argument)."),
  messageId: z.string().optional().describe('Your id of the message; a replay with the same id changes nothing.'),
  occurredAt: z.string().optional().describe('ISO-8601 time it was said (default: now).'),
});

const remember = defineTool({
  name: 'remember',
  description:
    'Remember a conversation: its turns are stored at once (repeated texts merge) and the durable facts in it ' +
    '(who the user is, preferences, events, changes such as a move) are formed in the background, replacing ' +
    'facts they contradict without deleting them.',
  input: z.strictObject({
    messages: z.array(turn).describe('The turns, in the order they were said.'),
    ...scopeArgs,
  }),
  async run(args, { api, principal }) {
    const { requested, rest } = splitScope(args);
    const scope = resolveScope(principal, requested, 'write');
    return api.remember(rest.messages, { scope, caller: principalCaller(principal) });
  },
});

const memoryHistory = defineTool({
  name: 'memory_history',
  description:
    "A memory's changes, oldest first: created, updated (refined), superseded (by which memory, from when), " +
    'archived, deleted, restored, re-embedded, confirmed — with the cause and the source turns.',
  input: z.strictObject({
    id: z.string().describe('The memory id.'),
    limit: z.number().int().optional().describe('Events per page (default 50).'),
    cursor: z.string().optional(),
    ...scopeArgs,
  }),
  annotations: { readOnlyHint: true },
  async run(args, { api, principal }) {
    const { requested, rest } = splitScope(args);
    const scope = resolveScope(principal, requested, 'read');
    if (principal.collections !== null) {
      const memory = await api.get(rest.id, { scope });
      if (!memory || !canSee(principal, memory)) {
        throw new EngramError('NOT_FOUND', `no memory ${rest.id}`, { details: { id: rest.id } });
      }
    }
    return api.history(rest.id, { scope, limit: rest.limit, cursor: rest.cursor });
  },
});

/** `remember` and `memory_history`, under the same tenant rules as the HTTP API. */
export const FORMATION_TOOLS: readonly McpTool[] = [remember, memoryHistory];
