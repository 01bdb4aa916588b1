import type { EmbeddingInfo } from './memory.js';
import type { MemoryStatus, MemoryType } from './memory-type.js';
import type { Scope } from './scope.js';

/** Statuses a filter sees when it names none: only live memories. */
export const DEFAULT_STATUSES: readonly MemoryStatus[] = ['activated'];

/**
 * Largest `limit` of one store read: a list page, or the dense / lexical candidates of a search.
 * Every backend enforces it (INVALID_LIMIT above it). The facade's own limit on what a caller may
 * ask for (`DEFAULT_LIMITS.maxLimit`, 1,000) is lower; the store's is what the searcher's candidate
 * pools need (10 × topK, so 10,000 at topK 1,000).
 */
export const MAX_STORE_LIMIT = 10_000;

/** Which memories a list / count / search may see. `scope.tenant` is always required. */
export interface MemoryFilter {
  scope: Scope;
  /** Only these types. @default all types */
  types?: MemoryType[] | undefined;
  /** Only these statuses. @default DEFAULT_STATUSES (`['activated']`) */
  statuses?: MemoryStatus[] | undefined;
  /** Only memories carrying every one of these tags. */
  tags?: string[] | undefined;
  /** Only memories with this key. */
  key?: string | undefined;
  /** Only memories whose id is in this list. */
  ids?: string[] | undefined;
  /**
   * Only memories valid in the world at this instant (ISO-8601): `validFrom <= validAt` and
   * `validTo` null or later than it (the end is exclusive). Recall's "now" and `asOf` pass it;
   * statuses are filtered separately (`statuses`). @default no validity filter (ended and future
   * memories included)
   */
  validAt?: string | undefined;
}

/** Orders a list can follow. */
export const LIST_ORDERS = ['createdAt', 'updatedAt', 'statedAt'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];

export const LIST_DIRECTIONS = ['asc', 'desc'] as const;
export type ListDirection = (typeof LIST_DIRECTIONS)[number];

export interface ListOptions {
  /** @default 50 */
  limit?: number | undefined;
  /** Opaque cursor from a previous page. */
  cursor?: string | undefined;
  /** @default 'createdAt' (oldest first) */
  order?: ListOrder | undefined;
  /** @default 'asc' */
  direction?: ListDirection | undefined;
}

export interface Page<T> {
  items: T[];
  /** Null on the last page. */
  nextCursor: string | null;
}

export interface ScopeStats {
  total: number;
  byType: Partial<Record<MemoryType, number>>;
  byStatus: Partial<Record<MemoryStatus, number>>;
  /** Embedding models present among the matching rows, with row counts, most rows first (ties by model, then dim). */
  models: Array<EmbeddingInfo & { count: number }>;
}
