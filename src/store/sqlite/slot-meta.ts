import type { MemoryStatus, MemoryType } from '../../model/memory-type.js';

/** What a dense search may filter on after the partition (tenant, model, dim, user) is chosen. */
export interface SlotMeta {
  status: MemoryStatus;
  type: MemoryType;
  agent: string | null;
  session: string | null;
  collection: string | null;
  key: string | null;
  tags: readonly string[];
  /** Last update of the row (lets callers key per-memory caches without reading the row). */
  updatedAt: string;
  /** When it became true, as stored and compared (canonical ISO text; `statedAt ?? createdAt` on rows without one). */
  validFrom: string;
  /** When it stopped (exclusive), or null while it holds. */
  validTo: string | null;
  /** The row's key in `memories` (= its FTS5 rowid). */
  pk: number;
}

/** A predicate with a stable key describing it, so its matches can be reused while rows do not change. */
export interface SlotFilter {
  key: string;
  test: (id: string, meta: SlotMeta) => boolean;
  /**
   * Whether later searches are likely to ask the same filter again (no id list, no instant of its
   * own): only then are its verdicts worth remembering per row.
   */
  reusable: boolean;
}
