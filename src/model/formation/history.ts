import type { JsonObject } from '../json.js';
import type { EmbeddingInfo, MemorySource } from '../memory.js';
import type { MemoryStatus, MemoryType } from '../memory-type.js';

/**
 * Kinds of change the history log records. `confirmed` is formation's NOOP: new evidence
 * attached to an unchanged fact (sources grow, the version does not).
 */
export const HISTORY_EVENT_KINDS = [
  'created',
  'updated',
  'superseded',
  'archived',
  'deleted',
  'restored',
  're-embedded',
  'confirmed',
] as const;
export type HistoryEventKind = (typeof HISTORY_EVENT_KINDS)[number];

/** Why a memory changed. */
export type HistoryCause =
  /** A direct API call (facade, REST, MCP, CLI); `operation` names it, e.g. `update`, `delete`. */
  | { type: 'api'; operation: string }
  /** Formation applying a window's operations. */
  | {
      type: 'formation';
      jobId: string;
      windowKey: string;
      extractor: string;
      consolidator: string;
      decidedBy: 'llm' | 'rules';
    }
  /** A re-embedding run moving the memory to another embedding model. */
  | { type: 're-embed'; model: string }
  | { type: 'import'; source: string }
  | { type: 'system'; detail: string };

/** Who caused it: an API key's id (never the secret), a principal, or Engram itself. */
export interface HistoryCaller {
  kind: 'api-key' | 'principal' | 'system';
  id: string | null;
}

/** The fields of a memory a history event shows before and after a change. */
export interface MemorySnapshot {
  text: string;
  type: MemoryType;
  key: string | null;
  tags: string[];
  status: MemoryStatus;
  sources: MemorySource[];
  metadata: JsonObject;
  statedAt: string | null;
  validFrom: string | null;
  validTo: string | null;
  supersededBy: string | null;
  version: number;
  embedding: EmbeddingInfo | null;
}

/** One change to one memory. Append-only: events are never edited or removed, even when the memory is hard-deleted. */
export interface HistoryEvent {
  id: string;
  tenant: string;
  memoryId: string;
  kind: HistoryEventKind;
  /** System time of the change (ISO-8601 UTC). */
  at: string;
  /** Null for `created`. */
  before: MemorySnapshot | null;
  /** Null for a hard `deleted`. */
  after: MemorySnapshot | null;
  cause: HistoryCause;
  caller: HistoryCaller;
  /** Episode ids behind the change (formation); empty otherwise. */
  sourceTurnIds: string[];
}

/**
 * Reading the history (phase 2: facade `history(id)`, REST `/v1/memories/{id}/history`, MCP,
 * `engram history <id>`, the inspector's timeline). Events are written by the store inside the
 * transaction of the change they describe, never separately.
 */
/** One page of a list; `nextCursor` is null on the last page. */
export interface FormationPage<T> {
  items: T[];
  nextCursor: string | null;
}

export interface HistoryLog {
  /** A memory's events, oldest first; an id not in the tenant gives an empty page. */
  list(
    tenant: string,
    memoryId: string,
    options?: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<FormationPage<HistoryEvent>>;
  /** Every event of these memories of the tenant, each memory's oldest first (an export reads a page's at once). */
  forMemories(tenant: string, memoryIds: string[]): Promise<HistoryEvent[]>;
  /**
   * Events of the tenant's memories that no longer exist (hard-deleted), by memory then oldest
   * first, a page at a time: what an export carries besides the memories.
   */
  orphans(
    tenant: string,
    options?: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<FormationPage<HistoryEvent>>;
  /**
   * Replaces the snapshots of existing events (by event id, within the tenant), in one
   * transaction: the one exception to append-only, for scrubbing a value that must not be kept
   * (`engram scrub` masks what the safety policy masks in a memory's past as well as its present).
   * Kind, time, cause and caller are never changed. Returns how many events were rewritten.
   */
  redact(tenant: string, events: Array<Pick<HistoryEvent, 'id' | 'memoryId' | 'before' | 'after'>>): Promise<number>;
}
