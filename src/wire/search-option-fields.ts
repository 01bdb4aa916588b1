import { z } from '@hono/zod-openapi';
import { CHAT_ROLES } from '../model/chat-message.js';
import { MEMORY_TYPES } from '../model/memory-type.js';
import { PATH_NAMES } from '../model/path-name.js';
import {
  MAX_CONVERSATION_MESSAGES,
  MAX_DEEP_STAGES,
  MAX_SEARCH_COLLECTIONS,
  SEARCH_MODES,
  type WireSearchOptionName,
  type WireSearchOptions,
} from '../model/request-fields.js';

/** One scope value (user, agent, session, collection): 1 to 256 characters. */
export const scopeValue = z.string().min(1).max(256);

export const MemoryTypeSchema = z.enum(MEMORY_TYPES).openapi('MemoryType');

/**
 * The wire search options as zod fields, shared by the REST body (`POST /v1/search`) and the MCP
 * `search_memories` tool. They check JSON shapes and names; values with limits the facade is
 * configured with (topK, text lengths, reranker names) are checked by `Engram.search` itself, so
 * every entry point answers a mistake with the same code.
 */
export const wireSearchOptionFields = {
  mode: z
    .enum(SEARCH_MODES)
    .optional()
    .describe(
      'fast (default, no LLM), fine (one LLM planning call) or deep; without an LLM they fall back to fast (see `degraded`).',
    ),
  topK: z.number().int().optional().describe('Hits of the text types. Default 10.'),
  bucketLimits: z
    .strictObject({
      toolSchemaTopK: z.number().int().optional(),
      toolTrajectoryTopK: z.number().int().optional(),
      skillTopK: z.number().int().optional(),
      preferenceTopK: z.number().int().optional(),
    })
    .optional()
    .describe('Hits of the tool, skill and preference types (defaults 6, 6, 3, 6).'),
  types: z.array(MemoryTypeSchema).optional().describe('Memory types to search. Default: every type.'),
  paths: z
    .array(z.enum(PATH_NAMES))
    .optional()
    .describe('Run only these paths. Default: every local path but keyword.'),
  internet: z
    .union([z.boolean(), z.literal('always')])
    .optional()
    .describe('Add web results (the server needs a web search provider).'),
  reranker: z.string().max(64).optional().describe("Reranker name. Default 'noop'; 'cosine-local' is built in."),
  collections: z
    .array(scopeValue)
    .min(1)
    .max(MAX_SEARCH_COLLECTIONS)
    .optional()
    .describe('Search several collections (each must be readable by the caller), merged.'),
  threshold: z.number().optional().describe('Minimum final score. Default 0.'),
  priority: z
    .strictObject({
      user: scopeValue.optional(),
      agent: scopeValue.optional(),
      session: scopeValue.optional(),
      collection: scopeValue.optional(),
    })
    .optional()
    .describe('Soft priority scope for a second dense pass.'),
  boost: z
    .strictObject({
      userId: z.string().optional(),
      sessionId: z.string().optional(),
      tags: z.array(z.string()).optional(),
    })
    .optional()
    .describe('Boost matches on user, session or tags.'),
  fastGraph: z.boolean().optional().describe('Fast mode: use the query words as graph keys and tags.'),
  fulltext: z.boolean().optional().describe('Run the full-text channel inside every path. Default: fastGraph.'),
  decompose: z.boolean().optional().describe('Split a complex query into at most 3 sub-questions (LLM).'),
  reason: z.boolean().optional().describe('Let the LLM keep only the memories it would use.'),
  deepStages: z.number().int().min(1).max(MAX_DEEP_STAGES).optional().describe('Deep-search stages. Default 3.'),
  deepRewrite: z
    .boolean()
    .optional()
    .describe('Deep search rewrites the final memories into query-focused statements.'),
  nearDuplicateThreshold: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('Drop near-duplicates with cosine at least this.'),
  mmrLambda: z.number().min(0).max(1).optional().describe('Diversify with MMR at this lambda (1 = pure relevance).'),
  dedupe: z.boolean().optional().describe('Drop hits with the same text. Default true.'),
  context: z.string().optional().describe('Context for the fine planner.'),
  conversation: z
    .array(z.strictObject({ role: z.enum(CHAT_ROLES), content: z.string() }))
    .max(MAX_CONVERSATION_MESSAGES)
    .optional()
    .describe('Earlier turns for the fine planner.'),
  includeFlagged: z
    .boolean()
    .optional()
    .describe('Keep memories flagged as trying to instruct the model among the hits. Default false (withheld).'),
  asOf: z
    .string()
    .optional()
    .describe('ISO-8601 instant: return what was valid then instead of now (superseded facts of the time included).'),
  includeSuperseded: z
    .boolean()
    .optional()
    .describe('Also return memories that are not valid at that instant; their explanation.validity says so.'),
} satisfies Record<WireSearchOptionName, z.ZodType>;

// The zod fields produce exactly the model's wire options (a changed option fails to compile here).
type FieldsOutput = z.output<z.ZodObject<typeof wireSearchOptionFields>>;
const _fieldsMatchModel: [FieldsOutput] extends [WireSearchOptions] ? true : never = true;
