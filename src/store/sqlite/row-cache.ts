import { LRUCache } from 'lru-cache';

import { copyMemory } from '../../model/copy-memory.js';
import type { Memory } from '../../model/memory.js';

/** Bytes counted for one cached row beside its strings (the objects, their keys, the map entry). */
const ROW_OVERHEAD = 400;

/**
 * Whole memories as SQLite's rows decode to, least recently used dropped beyond `maxBytes`.
 * Reading a row through libsql costs about 12 µs (most of it turning 27 columns into JS values),
 * and decoding a cached one into a `Memory` (three JSON columns parsed) about 4 µs in a search,
 * against 1 µs to copy a decoded one: a recall reads its hits' rows and a search its pools', so
 * hot rows are kept here decoded and handed out as copies ({@link copyMemory}: callers never
 * share one, nor the cache's own).
 *
 * Rows are found by id alone, each entry saying whose it is: the ids a search hands in are the
 * strings it already looked up elsewhere, so finding them costs no new key string (a tenant
 * prefix made a new string and hashed it for every row read, about 0.3 µs each).
 * An entry of another tenant is no answer; two tenants with one id take turns in one entry.
 *
 * Staleness is the owner's to prevent: it {@link forget}s every row whose content or status it
 * writes as it writes it, {@link revise}s the cached rows whose usage it wrote once that is
 * committed, {@link clear}s everything when another connection committed, and only
 * {@link remember}s rows read outside a transaction (a rolled-back write must not stay cached).
 */
export class RowCache {
  private readonly rows: LRUCache<string, CachedRow> | null;

  /** `maxBytes` 0 keeps nothing. */
  constructor(maxBytes: number) {
    this.rows =
      maxBytes > 0
        ? new LRUCache<string, CachedRow>({ maxSize: maxBytes, sizeCalculation: (row) => memoryBytes(row.memory) })
        : null;
  }

  /** Copies of the cached memories of these ids (the others are absent). */
  take(tenant: string, ids: readonly string[]): Map<string, Memory> {
    const out = new Map<string, Memory>();
    if (this.rows === null || this.rows.size === 0) return out;
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row !== undefined && row.tenant === tenant) out.set(id, copyMemory(row.memory));
    }
    return out;
  }

  /** Keeps copies of these memories (the caller may go on using its own). */
  remember(tenant: string, memories: readonly Memory[]): void {
    if (this.rows === null) return;
    for (const memory of memories) this.rows.set(memory.id, { tenant, memory: copyMemory(memory) });
  }

  /**
   * Replaces the cached memories of these entries' ids by `revised(memory, entry)` (an id not
   * cached stays absent): for a write whose effect on the row is known, such as usage counts.
   * `revised` must return a new memory and leave the one it is given unchanged.
   */
  revise<E extends { id: string }>(
    tenant: string,
    entries: readonly E[],
    revised: (memory: Memory, entry: E) => Memory,
  ): void {
    if (this.rows === null || this.rows.size === 0) return;
    for (const entry of entries) {
      const row = this.rows.peek(entry.id);
      if (row !== undefined && row.tenant === tenant)
        this.rows.set(entry.id, { tenant, memory: revised(row.memory, entry) });
    }
  }

  forget(tenant: string, id: string): void {
    if (this.rows?.peek(id)?.tenant === tenant) this.rows.delete(id);
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

/** A cached memory and the tenant it belongs to. */
interface CachedRow {
  tenant: string;
  memory: Memory;
}

/**
 * Two bytes per string character (V8's worst case) of the memory's own strings, its tags, its
 * sources' and its metadata's (as JSON text, as the row holds it), plus the fixed overhead.
 */
function memoryBytes(memory: Memory): number {
  let bytes = ROW_OVERHEAD;
  for (const value of Object.values(memory)) if (typeof value === 'string') bytes += 2 * value.length;
  for (const tag of memory.tags) bytes += 2 * tag.length;
  for (const source of memory.sources)
    for (const value of Object.values(source)) if (typeof value === 'string') bytes += 2 * value.length;
  const metadata = Object.keys(memory.metadata).length === 0 ? 2 : JSON.stringify(memory.metadata).length;
  return bytes + 2 * metadata;
}
