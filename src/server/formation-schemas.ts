import { z } from '@hono/zod-openapi';
import { TURN_ROLES } from '../model/formation/episode.js';
import { HISTORY_EVENT_KINDS } from '../model/formation/history.js';
import { JOB_STATES } from '../model/formation/work-queue.js';
import {
  MemorySourceSchema,
  MemoryStatusSchema,
  MemoryTypeSchema,
  RequestScopeSchema,
  ScopeSchema,
} from './schemas.js';

/**
 * Wire schemas of formation: `POST /v1/remember`, `GET /v1/memories/{id}/history`, the formation
 * status and jobs. Turns are checked loosely here (JSON types and names) and strictly by the
 * facade, so that a bad transcript gets the code the library answers (INVALID_TEXT for a blank
 * text, TEXT_TOO_LONG, PAYLOAD_TOO_LARGE past 1,000 turns).
 */

export const TurnSchema = z
  .strictObject({
    role: z.enum(TURN_ROLES),
    text: z.string().optional().openapi({ description: 'What was said (`content` is accepted instead).' }),
    content: z.string().optional(),
    speaker: z.string().nullable().optional(),
    session: z.string().nullable().optional().openapi({ description: "Default: the scope's session." }),
    messageId: z.string().nullable().optional().openapi({ description: 'Makes a replayed turn a no-op.' }),
    occurredAt: z.string().nullable().optional().openapi({ description: 'ISO-8601; default: now.' }),
  })
  .openapi('Turn');

export const RememberBodySchema = z
  .strictObject({
    scope: RequestScopeSchema.optional(),
    messages: z.array(TurnSchema).openapi({ description: 'The conversation, in order (1 to 1,000 turns).' }),
    origin: z.enum(['remember', 'capture']).optional().openapi({
      description: "`capture`: one wrapped call's turns, windowed with the session's next turns. Default remember.",
    }),
  })
  .openapi('RememberRequest');

export const RememberResponseSchema = z
  .object({
    turns: z.array(z.object({ id: z.string(), action: z.enum(['insert', 'merge', 'unchanged']), count: z.number() })),
    jobs: z.number(),
    formation: z.enum(['queued', 'episodes-only']),
  })
  .openapi('RememberResponse');

const SnapshotSchema = z
  .object({
    text: z.string(),
    type: MemoryTypeSchema,
    key: z.string().nullable(),
    tags: z.array(z.string()),
    status: MemoryStatusSchema,
    sources: z.array(MemorySourceSchema),
    metadata: z.record(z.string(), z.unknown()),
    statedAt: z.string().nullable(),
    validFrom: z.string().nullable(),
    validTo: z.string().nullable(),
    supersededBy: z.string().nullable(),
    version: z.number(),
    embedding: z.object({ model: z.string(), dim: z.number() }).nullable(),
  })
  .openapi('MemorySnapshot');

export const HistoryEventSchema = z
  .object({
    id: z.string(),
    tenant: z.string(),
    memoryId: z.string(),
    kind: z.enum(HISTORY_EVENT_KINDS),
    at: z.string(),
    before: SnapshotSchema.nullable(),
    after: SnapshotSchema.nullable(),
    cause: z.object({ type: z.enum(['api', 'formation', 're-embed', 'import', 'system']) }).passthrough(),
    caller: z.object({ kind: z.enum(['api-key', 'principal', 'system']), id: z.string().nullable() }),
    sourceTurnIds: z.array(z.string()),
  })
  .openapi('HistoryEvent');

export const HistoryPageSchema = z
  .object({ items: z.array(HistoryEventSchema), nextCursor: z.string().nullable() })
  .openapi('HistoryPage');

const usage = z.object({
  calls: z.number(),
  failedCalls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  callsWithoutUsage: z.number(),
});

export const FormationJobSchema = z
  .object({
    id: z.string(),
    tenant: z.string(),
    state: z.enum(JOB_STATES),
    attempts: z.number(),
    maxAttempts: z.number(),
    nextRunAt: z.string(),
    lease: z.object({ owner: z.string(), until: z.string() }).nullable(),
    lastError: z.object({ code: z.string(), message: z.string(), retryable: z.boolean(), at: z.string() }).nullable(),
    result: z
      .object({ candidates: z.number(), operations: z.number(), extraction: usage, consolidation: usage })
      .nullable(),
    scope: ScopeSchema,
    idempotencyKey: z.string(),
    extractor: z.object({ name: z.string(), version: z.string() }),
    episodeIds: z.array(z.string()),
    session: z.string().nullable(),
    timezoneOffsetMinutes: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi('FormationJob');

export const FormationJobPageSchema = z
  .object({ items: z.array(FormationJobSchema), nextCursor: z.string().nullable() })
  .openapi('FormationJobPage');

export const FormationJobEnvelopeSchema = z.object({ job: FormationJobSchema }).openapi('FormationJobResponse');

export const FormationStatusSchema = z
  .object({
    enabled: z.boolean(),
    extractor: z.object({ name: z.string(), version: z.string(), method: z.enum(['llm', 'rule']) }).nullable(),
    consolidator: z.object({ name: z.string(), version: z.string() }),
    llm: z.string().nullable(),
    worker: z
      .object({
        owner: z.string(),
        running: z.boolean(),
        concurrency: z.number(),
        inFlight: z.number(),
        tenants: z.array(z.string()),
      })
      .nullable(),
    queue: z.object({
      counts: z.object(
        Object.fromEntries(JOB_STATES.map((s) => [s, z.number()])) as Record<(typeof JOB_STATES)[number], z.ZodNumber>,
      ),
      oldestWaitingSince: z.string().nullable(),
    }),
    openCaptureTurns: z.number(),
    dead: z.array(FormationJobSchema),
  })
  .openapi('FormationStatus');
