import usearch from 'usearch';
import type { MemoryStatus, MemoryType } from '../../model/memory-type.js';
import type { DenseCandidate } from '../memory-store.js';
import { unitVector } from '../../vector/unit-cosine.js';

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
}

/** Matching slots (and, for selective filters, the gathered vectors) of a recent filter. */
interface FilterMatch {
  version: number;
  matching: number[];
  gathered: Float32Array | Int8Array | null;
}

/**
 * Recent filters remembered per partition. A search runs several paths (one per group of memory
 * types, each with a priority pass), so this must cover all of one search's filters or each
 * search re-tests every row for each of them.
 */
const FILTER_MEMORY = 16;

/** Extra candidates fetched from the float32 SIMD search before exact float64 re-scoring. */
const RESCORE_MARGIN = 8;
/** Below this share of matching rows, matching vectors are gathered and searched alone. */
const GATHER_BELOW = 0.2;
/** Queries (midpoints of two stored rows) on which the int8 pre-selection is checked. */
const Q8_CHECK_QUERIES = 16;
/** Depth of that check: the size of the recall's dense pool for a limit of 10. */
const Q8_CHECK_DEPTH = 100;

/** Candidates the int8 scan selects for an exact top-`exact` (re-scoring reads each one's row). */
function preselected(exact: number): number {
  return Math.max(2 * exact, exact + 64);
}

/**
 * Writes `source` scaled to unit length into `target` at `offset`; a zero vector stays zero.
 * Returns false (and writes nothing) when a value is not finite.
 */
export function writeNormalized(target: Float32Array, offset: number, source: Float32Array): boolean {
  return unitVector(source, target.subarray(offset, offset + source.length)) !== null;
}

/** Options of a {@link VectorPartition}. */
export interface VectorPartitionOptions {
  /**
   * From this many rows on, a int8 copy of the unit vectors is kept and scanned first (4x less
   * memory traffic); the best candidates are then re-scored exactly from the float32 vectors.
   * `Infinity` disables it.
   */
  quantizeAbove: number;
}

/**
 * The vectors of one (tenant, embedding model, dim, user-or-all) partition, unit-normalised in
 * one contiguous Float32Array so a query is one native SIMD scan (usearch exact search, inner
 * product = cosine). Removal swaps the last row into the hole, so the array stays dense.
 *
 * Large partitions also keep an int8 copy (scale = 127 / largest absolute component, so nothing
 * is ever clipped). The int8 scan selects `max(2 * (limit + 8), limit + 72)` candidates, which are
 * re-scored in float64 from the float32 vectors: the returned order and cosines are exact
 * whenever the true top-`limit` is among those candidates (the benchmark measures how often).
 * The int8 copy is kept only if it passes a check on the partition's own rows (see `q8Holds`).
 */
export class VectorPartition {
  readonly dim: number;
  private readonly quantizeAbove: number;
  private data: Float32Array;
  private q8: Int8Array | null = null;
  private q8Scale = 0;
  private maxAbs = 0;
  /** Rows when the int8 copy was last checked, and whether that check failed. */
  private q8CheckedAt = 0;
  private q8Rejected = false;
  private ids: string[] = [];
  private metas: SlotMeta[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly slotOfPk = new Map<number, number>();
  private readonly statusCounts = new Map<string, number>();
  /** Rows with an end of validity, and the latest start seen (never lowered): see {@link coversValidAt}. */
  private endedRows = 0;
  private latestValidFrom = '';
  private bulk = false;
  /** Bumped by every change to the rows, so remembered filter matches know when they are stale. */
  private version = 0;
  private readonly filterMatches = new Map<string, FilterMatch>();
  /** Monotonic use counter for LRU eviction. */
  lastUsed = 0;

  constructor(dim: number, capacity = 64, options: VectorPartitionOptions = { quantizeAbove: Infinity }) {
    this.dim = dim;
    this.quantizeAbove = options.quantizeAbove;
    this.data = new Float32Array(Math.max(1, capacity) * dim);
  }

  get size(): number {
    return this.ids.length;
  }

  /** True when searches pre-select candidates with the int8 copy. */
  get quantized(): boolean {
    return this.q8 !== null;
  }

  /** Approximate heap bytes held. */
  get bytes(): number {
    let remembered = 0;
    for (const m of this.filterMatches.values()) remembered += m.matching.length * 8 + (m.gathered?.byteLength ?? 0);
    return this.data.byteLength + (this.q8?.byteLength ?? 0) + this.ids.length * 160 + remembered;
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

  private countValidity(meta: SlotMeta, delta: number): void {
    if (meta.validTo !== null) this.endedRows += delta;
    if (delta > 0 && meta.validFrom > this.latestValidFrom) this.latestValidFrom = meta.validFrom;
  }

  /**
   * True when every cached row is valid at `at` (nothing ended, nothing starts after it): a
   * `validAt` filter then drops nothing, and searches keep sharing one remembered match.
   */
  coversValidAt(at: string): boolean {
    return this.endedRows === 0 && this.latestValidFrom <= at;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** The slot holding the row with this `memories.pk`, if cached. */
  slotByPk(pk: number): number | undefined {
    return this.slotOfPk.get(pk);
  }

  idAt(slot: number): string {
    return this.ids[slot] as string;
  }

  metaAt(slot: number): SlotMeta {
    return this.metas[slot] as SlotMeta;
  }

  /** The `memories.pk` of a cached row. */
  pkOf(id: string): number | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : (this.metas[slot] as SlotMeta).pk;
  }

  /** Adds or replaces a row. `vector` must have `dim` finite values (it is normalised here). */
  upsert(id: string, meta: SlotMeta, vector: Float32Array): void {
    this.version++;
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if ((slot + 1) * this.dim > this.data.length) {
        const grown = new Float32Array(Math.max(this.data.length * 2, (slot + 1) * this.dim));
        grown.set(this.data);
        this.data = grown;
        if (this.q8 !== null) {
          const grownQ = new Int8Array(grown.length);
          grownQ.set(this.q8);
          this.q8 = grownQ;
        }
      }
      this.ids.push(id);
      this.metas.push(meta);
      this.slotOf.set(id, slot);
    } else {
      const old = this.metas[slot] as SlotMeta;
      this.countStatus(old.status, -1);
      this.countValidity(old, -1);
      this.slotOfPk.delete(old.pk);
      this.metas[slot] = meta;
    }
    this.slotOfPk.set(meta.pk, slot);
    this.countStatus(meta.status, 1);
    this.countValidity(meta, 1);
    if (!writeNormalized(this.data, slot * this.dim, vector)) {
      this.remove(id);
      return;
    }
    let rowMax = 0;
    for (let i = slot * this.dim, end = i + this.dim; i < end; i++)
      rowMax = Math.max(rowMax, Math.abs(this.data[i] as number));
    if (rowMax > this.maxAbs) {
      this.maxAbs = rowMax;
      if (this.q8 !== null) this.buildQ8();
    }
    if (this.q8 === null) {
      if (!this.bulk) this.maybeQuantize();
    } else {
      this.quantizeRow(slot);
    }
  }

  /**
   * Builds the int8 copy once the partition is large enough, and keeps it only if it passes
   * {@link q8Holds}. A rejected partition is checked again when it has doubled.
   */
  private maybeQuantize(): void {
    const n = this.ids.length;
    if (n < this.quantizeAbove || (this.q8Rejected && n < 2 * this.q8CheckedAt)) return;
    this.buildQ8();
    this.q8CheckedAt = n;
    this.q8Rejected = !this.q8Holds();
    if (this.q8Rejected) {
      this.q8 = null;
      this.version++;
    }
  }

  /**
   * Whether the int8 pre-selection finds the exact top {@link Q8_CHECK_DEPTH} on this
   * partition's own data, for queries halfway between two stored rows. Int8 with one scale for
   * every dimension loses the signal when all rows share a few large components (an anisotropic
   * embedding model): such partitions keep scanning float32 and stay exact.
   */
  private q8Holds(): boolean {
    const n = this.ids.length;
    const depth = Math.min(n, Q8_CHECK_DEPTH);
    let state = n >>> 0 || 1;
    const nextSlot = (): number => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % n;
    };
    const query = new Float32Array(this.dim);
    for (let k = 0; k < Q8_CHECK_QUERIES; k++) {
      const a = nextSlot() * this.dim;
      const b = nextSlot() * this.dim;
      for (let i = 0; i < this.dim; i++) query[i] = (this.data[a + i] as number) + (this.data[b + i] as number);
      if (!writeNormalized(query, 0, query) || query.every((v) => v === 0)) continue;
      const exact = this.topSlots(this.data.subarray(0, n * this.dim), query, depth, 1);
      const scan = this.scanInput(query);
      const found = new Set(
        this.topSlots(scan.dataset(n), scan.query, Math.min(n, preselected(depth + RESCORE_MARGIN)), 1),
      );
      // A row missed only because it ties the last one (duplicates) does not count against int8.
      const last = this.dot(exact[exact.length - 1] as number, query);
      if (exact.some((slot) => !found.has(slot) && this.dot(slot, query) - last > 1e-6)) return false;
    }
    return true;
  }

  /** Runs many upserts, building the int8 copy once at the end instead of along the way. */
  bulkLoad(load: () => void): void {
    this.bulk = true;
    try {
      load();
    } finally {
      this.bulk = false;
    }
    if (this.q8 === null) this.maybeQuantize();
  }

  private buildQ8(): void {
    this.version++;
    this.q8 = new Int8Array(this.data.length);
    this.q8Scale = this.maxAbs > 0 ? 127 / this.maxAbs : 1;
    for (let slot = 0; slot < this.ids.length; slot++) this.quantizeRow(slot);
  }

  private quantizeRow(slot: number): void {
    const q8 = this.q8 as Int8Array;
    const scale = this.q8Scale;
    for (let i = slot * this.dim, end = i + this.dim; i < end; i++)
      q8[i] = Math.round((this.data[i] as number) * scale);
  }

  remove(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.version++;
    const last = this.ids.length - 1;
    const meta = this.metas[slot] as SlotMeta;
    this.countStatus(meta.status, -1);
    this.countValidity(meta, -1);
    this.slotOfPk.delete(meta.pk);
    if (slot !== last) {
      const lastId = this.ids[last] as string;
      const lastMeta = this.metas[last] as SlotMeta;
      this.data.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.q8?.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.ids[slot] = lastId;
      this.metas[slot] = lastMeta;
      this.slotOf.set(lastId, slot);
      this.slotOfPk.set(lastMeta.pk, slot);
    }
    this.ids.pop();
    this.metas.pop();
    this.slotOf.delete(id);
    return true;
  }

  /**
   * Top-`limit` by cosine among rows accepted by `accept`. `query` must be unit length.
   * Cosines are re-computed in float64 from the cached unit vectors (so they match a JS cosine of
   * the stored vectors to ~1e-7); ties break by id.
   */
  search(query: Float32Array, limit: number, filter: SlotFilter | null, threads = 0): DenseCandidate[] {
    const n = this.ids.length;
    if (n === 0 || limit <= 0) return [];
    const exact = limit + RESCORE_MARGIN;
    const want = this.q8 === null ? exact : preselected(exact);
    const scan = this.scanInput(query);
    let slots: number[];
    if (filter === null) {
      slots = this.topSlots(scan.dataset(n), scan.query, Math.min(n, want), threads);
    } else {
      const match = this.match(filter);
      const m = match.matching.length;
      if (m === 0) return [];
      if (m === n) {
        slots = this.topSlots(scan.dataset(n), scan.query, Math.min(n, want), threads);
      } else if (m / n < GATHER_BELOW) {
        match.gathered ??= this.gather(scan.dataset(n), match.matching);
        const matching = match.matching;
        slots = this.topSlots(match.gathered, scan.query, Math.min(m, want), threads).map((j) => matching[j] as number);
      } else {
        slots = this.overFetchSearch(scan, Math.min(m, want), filter.test, m, threads);
      }
    }
    return this.scoreSlots(slots, query, limit);
  }

  /**
   * Top-`limit` by cosine among the given ids (those cached and accepted by `filter`), looked up
   * directly: the cost follows the number of ids, not the partition size.
   */
  searchIds(query: Float32Array, ids: Iterable<string>, limit: number, filter: SlotFilter | null): DenseCandidate[] {
    const slots: number[] = [];
    const seen = new Set<number>();
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined || seen.has(slot)) continue;
      seen.add(slot);
      if (filter === null || filter.test(id, this.metas[slot] as SlotMeta)) slots.push(slot);
    }
    return this.scoreSlots(slots, query, limit);
  }

  private scoreSlots(slots: readonly number[], query: Float32Array, limit: number): DenseCandidate[] {
    const scored: DenseCandidate[] = slots.map((slot) => ({
      id: this.ids[slot] as string,
      cosine: this.dot(slot, query),
      updatedAt: (this.metas[slot] as SlotMeta).updatedAt,
    }));
    scored.sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return scored.slice(0, limit);
  }

  /** Slots accepted by `filter`, remembered (with their gathered vectors) until the rows change. */
  private match(filter: SlotFilter): FilterMatch {
    const known = this.filterMatches.get(filter.key);
    if (known !== undefined && known.version === this.version) {
      // Refresh its position in the insertion-ordered map (least recently used goes first).
      this.filterMatches.delete(filter.key);
      this.filterMatches.set(filter.key, known);
      return known;
    }
    const matching: number[] = [];
    for (let i = 0; i < this.ids.length; i++)
      if (filter.test(this.ids[i] as string, this.metas[i] as SlotMeta)) matching.push(i);
    const match: FilterMatch = { version: this.version, matching, gathered: null };
    this.filterMatches.delete(filter.key);
    this.filterMatches.set(filter.key, match);
    while (this.filterMatches.size > FILTER_MEMORY) {
      const oldest = this.filterMatches.keys().next().value as string;
      this.filterMatches.delete(oldest);
    }
    return match;
  }

  /** The array to scan (int8 copy or float32 vectors) and the query in the same representation. */
  private scanInput(query: Float32Array): {
    query: Float32Array | Int8Array;
    dataset(rows: number): Float32Array | Int8Array;
  } {
    const q8 = this.q8;
    if (q8 === null) return { query, dataset: (rows) => this.data.subarray(0, rows * this.dim) };
    // The query is scaled to use the whole int8 range; only the ranking matters here.
    let qMax = 0;
    for (let i = 0; i < query.length; i++) qMax = Math.max(qMax, Math.abs(query[i] as number));
    const scale = qMax > 0 ? 127 / qMax : 1;
    const q = new Int8Array(query.length);
    for (let i = 0; i < query.length; i++) q[i] = Math.round((query[i] as number) * scale);
    return { query: q, dataset: (rows) => q8.subarray(0, rows * this.dim) };
  }

  private dot(slot: number, query: Float32Array): number {
    const data = this.data;
    const dim = this.dim;
    const base = slot * dim;
    // Four accumulators: independent additions pipeline better than one chain.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let i = 0;
    for (; i + 3 < dim; i += 4) {
      s0 += (data[base + i] as number) * (query[i] as number);
      s1 += (data[base + i + 1] as number) * (query[i + 1] as number);
      s2 += (data[base + i + 2] as number) * (query[i + 2] as number);
      s3 += (data[base + i + 3] as number) * (query[i + 3] as number);
    }
    for (; i < dim; i++) s0 += (data[base + i] as number) * (query[i] as number);
    const sum = s0 + s1 + (s2 + s3);
    if (!Number.isFinite(sum)) return 0;
    return sum > 1 ? 1 : sum < -1 ? -1 : sum;
  }

  private topSlots(
    dataset: Float32Array | Int8Array,
    query: Float32Array | Int8Array,
    k: number,
    threads: number,
  ): number[] {
    if (k <= 0) return [];
    const found = usearch.exactSearch(dataset, query, this.dim, k, usearch.MetricKind.IP, threads);
    const keys = found.keys;
    const out: number[] = [];
    const count = 'counts' in found ? Number(found.counts[0]) : keys.length;
    for (let i = 0; i < count; i++) out.push(Number(keys[i]));
    return out;
  }

  private gather(source: Float32Array | Int8Array, matching: number[]): Float32Array | Int8Array {
    const dim = this.dim;
    const gathered =
      source instanceof Int8Array ? new Int8Array(matching.length * dim) : new Float32Array(matching.length * dim);
    for (let j = 0; j < matching.length; j++) {
      const slot = matching[j] as number;
      gathered.set(source.subarray(slot * dim, (slot + 1) * dim), j * dim);
    }
    return gathered;
  }

  private overFetchSearch(
    scan: ReturnType<VectorPartition['scanInput']>,
    k: number,
    accept: (id: string, meta: SlotMeta) => boolean,
    m: number,
    threads: number,
  ): number[] {
    const n = this.ids.length;
    const dataset = scan.dataset(n);
    let fetch = Math.min(n, Math.ceil((k * n * 1.5) / m) + 16);
    for (;;) {
      const out: number[] = [];
      for (const slot of this.topSlots(dataset, scan.query, fetch, threads)) {
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
