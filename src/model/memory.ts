import type { JsonObject } from './json.js';
import type { MemoryLevel, MemoryStatus, MemoryType } from './memory-type.js';
import type { Scope } from './scope.js';

/** Kinds of source a memory can cite. */
export const MEMORY_SOURCE_TYPES = ['chat', 'doc', 'web', 'tool', 'file', 'system'] as const;
export type MemorySourceType = (typeof MEMORY_SOURCE_TYPES)[number];

/** The optional string fields of a {@link MemorySource} (besides its `type`). */
export const MEMORY_SOURCE_TEXT_FIELDS = ['id', 'role', 'content', 'url', 'title'] as const;

/** Where a memory came from: a conversation turn, a document, a URL, a tool call. */
export interface MemorySource {
  type: MemorySourceType;
  /** Stable id of the source item, e.g. a LoCoMo `dia_id` or a message id. */
  id?: string | undefined;
  role?: string | undefined;
  content?: string | undefined;
  url?: string | undefined;
  title?: string | undefined;
}

/** Which model produced a memory's vector. Stored with every row so models never mix silently. */
export interface EmbeddingInfo {
  model: string;
  dim: number;
}

export interface MemoryUsage {
  count: number;
  /** ISO-8601 UTC, or null when never returned by a search. */
  lastUsedAt: string | null;
}

/** A stored memory. Timestamps are ISO-8601 UTC strings so every backend and the wire agree. */
export interface Memory {
  id: string;
  text: string;
  type: MemoryType;
  key: string | null;
  tags: string[];
  level: MemoryLevel | null;
  summary: string | null;
  background: string | null;
  sources: MemorySource[];
  scope: Scope;
  metadata: JsonObject;
  /** When the fact was stated (e.g. the conversation date), distinct from when it was stored. */
  statedAt: string | null;
  createdAt: string;
  updatedAt: string;
  status: MemoryStatus;
  usage: MemoryUsage;
  embedding: EmbeddingInfo | null;
  /**
   * World time the fact became true (ISO-8601 UTC). Rows written without one (every memory from
   * before formation, and a plain `add`) read as `statedAt ?? createdAt`.
   */
  validFrom: string;
  /** World time it stopped being true (exclusive); null while it holds. */
  validTo: string | null;
  /** The memory that replaced it (formation's SUPERSEDE), or null. */
  supersededBy: string | null;
  /** 1 when created; each change to its content or status adds 1 (usage and re-embedding do not). */
  version: number;
}

/** The world-time validity fields of a {@link Memory}. */
export const VALIDITY_FIELDS = ['validFrom', 'validTo', 'supersededBy', 'version'] as const;

/** What a caller supplies to create a memory. Everything but `text` has a default. */
export interface MemoryInput {
  text: string;
  /** @default generated UUID v4 */
  id?: string | undefined;
  /** @default 'LongTermMemory' */
  type?: MemoryType | undefined;
  key?: string | null | undefined;
  tags?: string[] | undefined;
  level?: MemoryLevel | null | undefined;
  summary?: string | null | undefined;
  background?: string | null | undefined;
  sources?: MemorySource[] | undefined;
  metadata?: JsonObject | undefined;
  /** ISO-8601 or a Date. @default null */
  statedAt?: string | Date | null | undefined;
  /** @default 'activated' */
  status?: MemoryStatus | undefined;
}

/** Every field a {@link MemoryInput} may carry; anything else is rejected. */
export const MEMORY_INPUT_FIELDS = [
  'text',
  'id',
  'type',
  'key',
  'tags',
  'level',
  'summary',
  'background',
  'sources',
  'metadata',
  'statedAt',
  'status',
] as const satisfies ReadonlyArray<keyof MemoryInput>;

/** Fields that may change after creation. Changing `text` re-embeds the memory. */
export type MemoryPatch = Partial<
  Pick<
    MemoryInput,
    | 'text'
    | 'type'
    | 'key'
    | 'tags'
    | 'level'
    | 'summary'
    | 'background'
    | 'sources'
    | 'metadata'
    | 'statedAt'
    | 'status'
  >
>;
