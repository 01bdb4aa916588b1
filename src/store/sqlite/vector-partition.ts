import usearch from 'usearch';
import type { MemoryStatus, MemoryType } from '../../model/memory-type.js';
import type { DenseCandidate } from '../memory-store.js';

/** What a dense search may filter on after the partition (tenant, model, dim, user) is chosen. */
export interface SlotMeta {
  status: MemoryStatus;
  type: MemoryType;
  agent: string | null;
  session: string | null;
  collection: string | null;
  key: string | null;
  tags: readonly string[];
}

/** A predicate over {@link SlotMeta}, or null when every row matches. */
export type SlotPredicate = ((id: string, meta: SlotMeta) => boolean) | null;

/** Extra candidates fetched from the float32 SIMD search before exact float64 re-scoring. */
const RESCORE_MARGIN = 8;
/** Below this share of matching rows, matching vectors are gathered and searched alone. */
const GATHER_BELOW = 0.2;

/**
 * Writes `source` scaled to unit length into `target` at `offset`; a zero vector stays zero.
 * Returns false (and writes nothing) when a value is not finite.
 */
export function writeNormalized(target: Float32Array, offset: number, source: Float32Array): boolean {
  let norm = 0;
  for (let i = 0; i < source.length; i++) {
    const v = source[i] as number;
    norm += v * v;
  }
  if (!Number.isFinite(norm)) return false;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < source.length; i++) target[offset + i] = (source[i] as number) * scale;
  return true;
}

/**
 * The vectors of one (tenant, embedding model, dim, user-or-all) partition, unit-normalised in
 * one contiguous Float32Array so a query is one native SIMD scan (usearch exact search, inner
 * product = cosine). Removal swaps the last row into the hole, so the array stays dense.
 */
export class VectorPartition {
  readonly dim: number;
  private data: Float32Array;
  private ids: string[] = [];
  private metas: SlotMeta[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly statusCounts = new Map<string, number>();
  /** Monotonic use counter for LRU eviction. */
  lastUsed = 0;

  constructor(dim: number, capacity = 64) {
    this.dim = dim;
    this.data = new Float32Array(Math.max(1, capacity) * dim);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Approximate heap bytes held. */
  get bytes(): number {
    return this.data.byteLength + this.ids.length * 160;
  }

  /** Statuses present among the cached rows. */
  statuses(): ReadonlySet<string> {
    const out = new Set<string>();
    for (const [status, count] of this.statusCounts) if (count > 0) out.add(status);
    return out;
  }

  private countStatus(status: string, delta: number): void {
    this.statusCounts.set(status, (this.statusCounts.get(status) ?? 0) + delta);
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** Adds or replaces a row. `vector` must have `dim` finite values (it is normalised here). */
  upsert(id: string, meta: SlotMeta, vector: Float32Array): void {
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if ((slot + 1) * this.dim > this.data.length) {
        const grown = new Float32Array(Math.max(this.data.length * 2, (slot + 1) * this.dim));
        grown.set(this.data);
        this.data = grown;
      }
      this.ids.push(id);
      this.metas.push(meta);
      this.slotOf.set(id, slot);
    } else {
      this.countStatus((this.metas[slot] as SlotMeta).status, -1);
      this.metas[slot] = meta;
    }
    this.countStatus(meta.status, 1);
    if (!writeNormalized(this.data, slot * this.dim, vector)) this.remove(id);
  }

  remove(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    const last = this.ids.length - 1;
    this.countStatus((this.metas[slot] as SlotMeta).status, -1);
    if (slot !== last) {
      const lastId = this.ids[last] as string;
      this.data.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.ids[slot] = lastId;
      this.metas[slot] = this.metas[last] as SlotMeta;
      this.slotOf.set(lastId, slot);
    }
    this.ids.pop();
    this.metas.pop();
    this.slotOf.delete(id);
    return true;
  }

  /**
   * Exact top-`limit` by cosine among rows accepted by `accept`. `query` must be unit length.
   * Cosines are re-computed in float64 from the cached unit vectors (so they match a JS cosine of
   * the stored vectors to ~1e-7); ties break by id.
   */
  search(query: Float32Array, limit: number, accept: SlotPredicate, threads = 0): DenseCandidate[] {
    const n = this.ids.length;
    if (n === 0 || limit <= 0) return [];
    const want = limit + RESCORE_MARGIN;
    let slots: number[];
    if (accept === null) {
      slots = this.topSlots(this.data.subarray(0, n * this.dim), query, Math.min(n, want), threads);
    } else {
      const matching: number[] = [];
      for (let i = 0; i < n; i++) if (accept(this.ids[i] as string, this.metas[i] as SlotMeta)) matching.push(i);
      const m = matching.length;
      if (m === 0) return [];
      if (m === n) {
        slots = this.topSlots(this.data.subarray(0, n * this.dim), query, Math.min(n, want), threads);
      } else if (m / n < GATHER_BELOW) {
        slots = this.gatherSearch(matching, query, Math.min(m, want), threads);
      } else {
        slots = this.overFetchSearch(query, Math.min(m, want), accept, m, threads);
      }
    }
    const scored: DenseCandidate[] = slots.map((slot) => ({
      id: this.ids[slot] as string,
      cosine: this.dot(slot, query),
    }));
    scored.sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return scored.slice(0, limit);
  }

  private dot(slot: number, query: Float32Array): number {
    const base = slot * this.dim;
    let sum = 0;
    for (let i = 0; i < this.dim; i++) sum += (this.data[base + i] as number) * (query[i] as number);
    if (!Number.isFinite(sum)) return 0;
    return sum > 1 ? 1 : sum < -1 ? -1 : sum;
  }

  private topSlots(dataset: Float32Array, query: Float32Array, k: number, threads: number): number[] {
    if (k <= 0) return [];
    const found = usearch.exactSearch(dataset, query, this.dim, k, usearch.MetricKind.IP, threads);
    const keys = found.keys;
    const out: number[] = [];
    const count = 'counts' in found ? Number(found.counts[0]) : keys.length;
    for (let i = 0; i < count; i++) out.push(Number(keys[i]));
    return out;
  }

  private gatherSearch(matching: number[], query: Float32Array, k: number, threads: number): number[] {
    const dim = this.dim;
    const gathered = new Float32Array(matching.length * dim);
    for (let j = 0; j < matching.length; j++) {
      const slot = matching[j] as number;
      gathered.set(this.data.subarray(slot * dim, (slot + 1) * dim), j * dim);
    }
    return this.topSlots(gathered, query, k, threads).map((j) => matching[j] as number);
  }

  private overFetchSearch(
    query: Float32Array,
    k: number,
    accept: (id: string, meta: SlotMeta) => boolean,
    m: number,
    threads: number,
  ): number[] {
    const n = this.ids.length;
    const dataset = this.data.subarray(0, n * this.dim);
    let fetch = Math.min(n, Math.ceil((k * n * 1.5) / m) + 16);
    for (;;) {
      const out: number[] = [];
      for (const slot of this.topSlots(dataset, query, fetch, threads)) {
        if (accept(this.ids[slot] as string, this.metas[slot] as SlotMeta)) {
          out.push(slot);
          if (out.length === k) return out;
        }
      }
      if (fetch >= n) return out;
      fetch = Math.min(n, fetch * 4);
    }
  }
}
