import { LRUCache } from 'lru-cache';

import type { SelectedMemory } from '../memory-from-columns.js';

/** Bytes counted for one cached row beside its strings (the object, its keys, the map entry). */
const ROW_OVERHEAD = 400;

/**
 * Whole memory rows as SQLite returned them, least recently used dropped beyond `maxBytes`.
 * Reading a row through libsql costs about 12 µs (most of it turning 27 columns into JS values);
 * a recall reads its hits' rows and a search its pools', so hot rows are kept here and turned
 * into fresh `Memory` objects on every read (callers never share one).
 *
 * Staleness is the owner's to prevent: it {@link forget}s every row whose content or status it
 * writes as it writes it, {@link revise}s the cached rows whose usage it wrote once that is
 * committed, {@link clear}s everything when another connection committed, and only
 * {@link remember}s rows read outside a transaction (a rolled-back write must not stay cached).
 */
export class RowCache {
  private readonly rows: LRUCache<string, SelectedMemory> | null;

  /** `maxBytes` 0 keeps nothing. */
  constructor(maxBytes: number) {
    this.rows =
      maxBytes > 0 ? new LRUCache<string, SelectedMemory>({ maxSize: maxBytes, sizeCalculation: rowBytes }) : null;
  }

  /** The cached rows of these ids (the others are absent). */
  take(tenant: string, ids: readonly string[]): Map<string, SelectedMemory> {
    const out = new Map<string, SelectedMemory>();
    if (this.rows === null || this.rows.size === 0) return out;
    for (const id of ids) {
      const row = this.rows.get(key(tenant, id));
      if (row !== undefined) out.set(id, row);
    }
    return out;
  }

  remember(tenant: string, rows: readonly SelectedMemory[]): void {
    if (this.rows === null) return;
    for (const row of rows) this.rows.set(key(tenant, row.id), row);
  }

  /**
   * Replaces the cached rows of these entries' ids by `revised(row, entry)` (an id not cached stays
   * absent): for a write whose effect on the row is known, such as usage counts.
   */
  revise<E extends { id: string }>(
    tenant: string,
    entries: readonly E[],
    revised: (row: SelectedMemory, entry: E) => SelectedMemory,
  ): void {
    if (this.rows === null || this.rows.size === 0) return;
    for (const entry of entries) {
      const k = key(tenant, entry.id);
      const row = this.rows.peek(k);
      if (row !== undefined) this.rows.set(k, revised(row, entry));
    }
  }

  forget(tenant: string, id: string): void {
    this.rows?.delete(key(tenant, id));
  }

  clear(): void {
    this.rows?.clear();
  }

  /** Rows and bytes held (observability). */
  get size(): number {
    return this.rows?.size ?? 0;
  }

  get bytes(): number {
    return this.rows?.calculatedSize ?? 0;
  }
}

function key(tenant: string, id: string): string {
  return `${tenant}\u0000${id}`;
}

/** Two bytes per string character (V8's worst case) plus the fixed overhead. */
function rowBytes(row: SelectedMemory): number {
  let bytes = ROW_OVERHEAD;
  for (const value of Object.values(row)) if (typeof value === 'string') bytes += 2 * value.length;
  return bytes;
}
