import { z } from '@hono/zod-openapi';
import { MEMORY_SOURCE_TYPES } from '../model/memory.js';
import { LIST_DIRECTIONS, LIST_ORDERS } from '../model/memory-filter.js';
import { MEMORY_LEVELS, MEMORY_STATUSES } from '../model/memory-type.js';
import { PROVIDER_NAMES } from '../model/provider-name.js';
import { RECALL_PROFILE_NAMES } from '../model/request-fields.js';
import { MemoryTypeSchema, scopeValue, wireSearchOptionFields } from '../wire/search-option-fields.js';

/**
 * Wire schemas of the HTTP API. The same objects validate requests, optionally validate
 * responses, and generate the OpenAPI 3.1 document served at `/openapi.json`.
 * Request objects are strict: unknown fields are rejected.
 */

export { MemoryTypeSchema };
export const MemoryStatusSchema = z.enum(MEMORY_STATUSES).openapi('MemoryStatus');
export const MemoryLevelSchema = z.enum(MEMORY_LEVELS).openapi('MemoryLevel');

/**
 * A scope in a request body. The tenant always comes from the API key: a `tenant` here must
 * equal the key's tenant. The other fields narrow the request inside the tenant.
 */
export const RequestScopeSchema = z
  .strictObject({
    tenant: scopeValue.nullable().optional().openapi({ description: "Must equal the API key's tenant when given." }),
    user: scopeValue.nullable().optional(),
    agent: scopeValue.nullable().optional(),
    session: scopeValue.nullable().optional(),
    collection: scopeValue.nullable().optional(),
  })
  .openapi('RequestScope');

export const ScopeSchema = z
  .object({
    tenant: z.string(),
    user: z.string().optional(),
    agent: z.string().optional(),
    session: z.string().optional(),
    collection: z.string().optional(),
  })
  .openapi('Scope');

export const MemorySourceSchema = z
  .strictObject({
    type: z.enum(MEMORY_SOURCE_TYPES),
    id: z.string().optional(),
    role: z.string().optional(),
    content: z.string().optional(),
    url: z.string().optional(),
    title: z.string().optional(),
  })
  .openapi('MemorySource');

/** A precomputed vector: JSON numbers, checked against the scope's embedding model like the library does. */
export const GivenVectorSchema = z
  .array(z.number())
  .min(1)
  .openapi('Vector', {
    description:
      "A precomputed embedding under the scope's model (the server's embedder): exactly its dimension, finite, not all zeros. " +
      'DIMENSION_MISMATCH for another length, INVALID_VECTOR for a bad value, MODEL_MISMATCH when the scope holds another model.',
  });

const memoryFields = {
  text: z.string().openapi({ description: 'The memory text (at most the server limit, 32768 characters by default).' }),
  type: MemoryTypeSchema.optional(),
  key: z.string().nullable().optional(),
  tags: z.array(z.string()).optional(),
  level: MemoryLevelSchema.nullable().optional(),
  summary: z.string().nullable().optional(),
  background: z.string().nullable().optional(),
  sources: z.array(MemorySourceSchema).optional(),
  metadata: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Any JSON object (nesting ≤ 32).' }),
  statedAt: z.string().nullable().optional().openapi({ description: 'ISO-8601 date the fact was stated.' }),
  status: MemoryStatusSchema.optional(),
  vector: GivenVectorSchema.optional().openapi({
    description: 'Store this vector instead of embedding the text (a patch: replaces the stored vector).',
  }),
};

export const MemoryInputSchema = z
  .strictObject({ id: z.string().optional().openapi({ description: 'Defaults to a UUID v4.' }), ...memoryFields })
  .openapi('MemoryInput');

export const MemoryPatchSchema = z
  .strictObject({ ...memoryFields, text: memoryFields.text.optional() })
  .openapi('MemoryPatch');

export const MemorySchema = z
  .object({
    id: z.string(),
    text: z.string(),
    type: MemoryTypeSchema,
    key: z.string().nullable(),
    tags: z.array(z.string()),
    level: MemoryLevelSchema.nullable(),
    summary: z.string().nullable(),
    background: z.string().nullable(),
    sources: z.array(MemorySourceSchema),
    scope: ScopeSchema,
    metadata: z.record(z.string(), z.unknown()),
    statedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    status: MemoryStatusSchema,
    usage: z.object({ count: z.number(), lastUsedAt: z.string().nullable() }),
    embedding: z.object({ model: z.string(), dim: z.number() }).nullable(),
    validFrom: z
      .string()
      .openapi({ description: 'World time the fact became true (ISO-8601); statedAt ?? createdAt unless formed.' }),
    validTo: z
      .string()
      .nullable()
      .openapi({ description: 'World time it stopped being true (exclusive); null while it holds.' }),
    supersededBy: z.string().nullable().openapi({ description: 'The memory that replaced it, or null.' }),
    version: z.number().int().openapi({ description: '1 when created; each change of content or status adds 1.' }),
  })
  .openapi('Memory');

/** A call's safety policy; Engram checks it (unknown settings are INVALID_INPUT, as at every entry point). */
export const SafetyPatchSchema = z.record(z.string(), z.unknown()).openapi('SafetyPolicyPatch', {
  description:
    "Tightens the write-safety policy for this request only (over the instance's and the tenant's): " +
    '`actions` per category (`secret`, `card`, `iban`, `nationalId`, `phone`, `email`: `keep` | `mask` | `reject`, only ' +
    'towards `reject`), `poisoning` (`action`: `off` | `flag` | `reject`, only towards `reject`; `threshold`, only lower), ' +
    '`nationalIds` (preset names to add), `enabled` (true only).',
});

export const CreateMemoryBodySchema = z
  .strictObject({
    scope: RequestScopeSchema.optional(),
    memory: MemoryInputSchema,
    safety: SafetyPatchSchema.optional(),
  })
  .openapi('CreateMemoryRequest');

export const BatchBodySchema = z
  .strictObject({
    scope: RequestScopeSchema.optional(),
    memories: z
      .array(MemoryInputSchema)
      .min(1)
      .openapi({ description: 'Stored all or none. At most the batch limit (default 1000).' }),
    safety: SafetyPatchSchema.optional(),
  })
  .openapi('BatchImportRequest');

export const PatchBodySchema = z
  .strictObject({
    scope: RequestScopeSchema.optional(),
    patch: MemoryPatchSchema,
    safety: SafetyPatchSchema.optional(),
  })
  .openapi('UpdateMemoryRequest');

export const MemoryEnvelopeSchema = z.object({ memory: MemorySchema }).openapi('MemoryResponse');
export const MemoriesEnvelopeSchema = z.object({ memories: z.array(MemorySchema) }).openapi('BatchImportResponse');
export const DeleteResultSchema = z.object({ deleted: z.boolean() }).openapi('DeleteResponse');

export const IdParamSchema = z.strictObject({ id: z.string().min(1).max(256) });

const queryList = z.union([z.string(), z.array(z.string())]);

/** Scope fields as query parameters (GET and DELETE requests). */
export const ScopeQuerySchema = z.strictObject({
  tenant: scopeValue.optional(),
  user: scopeValue.optional(),
  agent: scopeValue.optional(),
  session: scopeValue.optional(),
  collection: scopeValue.optional(),
});

const filterQuery = {
  types: queryList.optional().openapi({ description: 'Memory types; repeat the parameter or separate with commas.' }),
  statuses: queryList.optional().openapi({ description: 'Statuses; repeat or comma-separate. Default: activated.' }),
  tags: queryList.optional().openapi({ description: 'Only memories carrying every tag; repeat for several.' }),
  key: z.string().optional(),
  ids: queryList.optional().openapi({ description: 'Only these ids; repeat for several.' }),
};

export const StatsQuerySchema = ScopeQuerySchema.extend(filterQuery);

export const ListQuerySchema = ScopeQuerySchema.extend({
  ...filterQuery,
  limit: z
    .string()
    .regex(/^\d{1,7}$/, 'limit must be a positive integer')
    .optional()
    .openapi({ description: 'Page size. Default 50.' }),
  cursor: z.string().max(4096).optional(),
  order: z.enum(LIST_ORDERS).optional(),
  direction: z.enum(LIST_DIRECTIONS).optional(),
});

export const PageSchema = z
  .object({ items: z.array(MemorySchema), nextCursor: z.string().nullable() })
  .openapi('MemoryPage');

export const StatsSchema = z
  .object({
    total: z.number(),
    byType: z.record(z.string(), z.number()),
    byStatus: z.record(z.string(), z.number()),
    models: z.array(z.object({ model: z.string(), dim: z.number(), count: z.number() })),
  })
  .openapi('ScopeStats');

const recallOptionFields = {
  scope: RequestScopeSchema.optional(),
  limit: z.number().int().optional().openapi({ description: 'Hits returned. Default 5; at most the server limit.' }),
  threshold: z.number().optional().openapi({ description: 'Minimum fused score in [-1, 1]. Default 0.1.' }),
  profile: z.enum(RECALL_PROFILE_NAMES).optional(),
  types: z.array(MemoryTypeSchema).optional(),
  lexicalWeight: z.number().optional(),
  lexicalWeightShort: z.number().optional(),
  includeFlagged: z.boolean().optional().openapi({
    description:
      'Return memories flagged as trying to instruct the model among the hits. Default false: they are withheld.',
  }),
  asOf: z.string().optional().openapi({ description: 'ISO-8601 instant: what was valid then instead of now.' }),
  includeSuperseded: z
    .boolean()
    .optional()
    .openapi({ description: 'Also return memories not valid at that instant; `explanation.validity` says so.' }),
};

/** Why a memory was flagged on write as trying to instruct the model. */
export const MemoryFlagSchema = z
  .object({ reason: z.string(), rules: z.array(z.string()), fields: z.array(z.string()) })
  .openapi('MemoryFlag');

export const RecallBodySchema = z
  .strictObject({
    query: z.string().openapi({ description: 'May be empty when `vector` is given.' }),
    ...recallOptionFields,
    vector: GivenVectorSchema.optional().openapi({
      description: 'The query as a precomputed vector (skips embedding).',
    }),
    explain: z
      .boolean()
      .optional()
      .openapi({ description: 'Add server-side stage timings (`server`) to the response.' }),
  })
  .openapi('RecallRequest');

/** How a recalled memory stands at the recall's instant (with `includeSuperseded`). */
export const HitValiditySchema = z
  .object({
    state: z.enum(['valid', 'superseded', 'ended', 'not-yet-valid']),
    at: z.string(),
    validFrom: z.string(),
    validTo: z.string().nullable(),
    supersededBy: z.string().nullable(),
  })
  .openapi('HitValidity');

export const HitSchema = z
  .object({
    memory: MemorySchema,
    score: z.number(),
    explanation: z.object({
      channels: z.array(z.string()),
      cosine: z.number(),
      bm25: z.number(),
      bm25Raw: z.number(),
      denseWeight: z.number(),
      lexicalWeight: z.number(),
      fused: z.number(),
      denseRank: z.number().optional(),
      lexicalRank: z.number().optional(),
      extra: z.record(z.string(), z.number()).optional(),
      flagged: MemoryFlagSchema.optional(),
      validity: HitValiditySchema.optional(),
    }),
  })
  .openapi('Hit');

export const RecallTimingsSchema = z
  .object({ embedMs: z.number(), denseMs: z.number(), lexicalMs: z.number(), rankMs: z.number(), totalMs: z.number() })
  .openapi('RecallTimings');

export const ServerTimingsSchema = z
  .object({ parseMs: z.number(), recallMs: z.number(), totalMs: z.number() })
  .openapi('ServerTimings');

export const RecallResponseSchema = z
  .object({
    query: z.string(),
    hits: z.array(HitSchema),
    cut: z.array(HitSchema),
    withheld: z.array(HitSchema).openapi({
      description:
        'Hits withheld because their memory was flagged as trying to instruct the model (explanation.flagged says why).',
    }),
    poolSize: z.number(),
    timings: RecallTimingsSchema,
    server: ServerTimingsSchema.optional(),
  })
  .openapi('RecallResponse');

/** Bounds and format of the injected context block (see `formatContextBlock`). */
export const BlockOptionsSchema = z
  .strictObject({
    tag: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/)
      .optional(),
    timestamp: z.enum(['stated-or-created', 'stated', 'none']).optional(),
    since: z.boolean().optional().openapi({ description: 'Note when each fact became true: `(since 2026-02-01)`.' }),
    summaries: z.boolean().optional(),
    maxMemories: z.number().int().min(0).max(1000).optional(),
    maxChars: z.number().int().min(0).max(1_000_000).optional(),
    maxTokens: z.number().int().min(0).max(250_000).optional(),
    maxItemChars: z.number().int().min(0).max(100_000).optional(),
  })
  .openapi('ContextBlockOptions');

/** The multi-path searcher: plan, parallel paths and channels, rerank, post-processing. */
export const SearchBodySchema = z
  .strictObject({
    query: z.string(),
    scope: RequestScopeSchema.optional(),
    ...wireSearchOptionFields,
    vector: GivenVectorSchema.optional().openapi({
      description: "The query's precomputed vector for the dense channels (texts the planner adds are embedded).",
    }),
  })
  .openapi('SearchRequest');

const SearchHitSchema = z.object({
  memory: MemorySchema,
  relevance: z.number(),
  collection: z.string().nullable(),
  explanation: z.record(z.string(), z.unknown()),
  rewritten: z.string().optional(),
});

export const SearchResponseSchema = z
  .object({
    query: z.string(),
    hits: z.array(SearchHitSchema),
    withheld: z.array(SearchHitSchema).openapi({
      description:
        'Hits withheld because their memory was flagged as trying to instruct the model (explanation.flagged says why).',
    }),
    plan: z.record(z.string(), z.unknown()),
    timings: z.record(z.string(), z.unknown()).openapi({
      description: 'planMs, embedMs, pathsMs, per-path and per-channel ms, postMs, reasonMs, deepMs, totalMs.',
    }),
    collections: z.object({ searched: z.array(z.string().nullable()), denied: z.array(z.string()) }),
    degraded: z.record(z.string(), z.string()),
  })
  .openapi('SearchResponse');

export const InjectBodySchema = z
  .strictObject({
    provider: z.enum(PROVIDER_NAMES),
    request: z
      .record(z.string(), z.unknown())
      .openapi({ description: "The provider request, in the provider SDK's shape." }),
    ...recallOptionFields,
    block: BlockOptionsSchema.optional(),
  })
  .openapi('InjectRequest');

export const InjectResponseSchema = z
  .object({
    request: z.record(z.string(), z.unknown()),
    injected: z.boolean().openapi({ description: 'False when there was no query or no memory passed the threshold.' }),
    query: z.string().nullable(),
    hits: z.array(z.object({ id: z.string(), score: z.number() })),
    withheld: z
      .array(z.object({ id: z.string(), reason: z.string() }))
      .openapi({ description: 'Memories left out because they were flagged as trying to instruct the model.' }),
    block: z.string().nullable(),
  })
  .openapi('InjectResponse');

export const ErrorSchema = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }),
  })
  .openapi('Error');
