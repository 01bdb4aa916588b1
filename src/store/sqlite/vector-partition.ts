import { maxCosinesOfRows, squaredNorm } from '../../vector/max-cosine.js';
import { RowVectors, type RowVectorsOptions } from '../../vector/row-vectors.js';
import type { TermDocument } from '../../text/term-document.js';
import type { DenseCandidate } from '../memory-store.js';
import {
  gatherRows,
  int8PreselectionHolds,
  int8Query,
  overFetchTop,
  preselected,
  topSlots,
  writeNormalized,
} from './slot-scan.js';
import { PkMap } from './pk-map.js';
import { RecentlyUsed } from './recently-used.js';
import type { SlotFilter, SlotMeta } from './slot-meta.js';

export type { SlotFilter, SlotMeta } from './slot-meta.js';
export { writeNormalized } from './slot-scan.js';

/** Matching slots (and, for selective filters, the gathered vectors) of a recent filter. */
interface FilterMatch {
  version: number;
  matching: number[];
  gathered: Float32Array | Int8Array | null;
  /** 1 at each matching slot, for over-fetching searches (made when one first needs it). */
  mask: Uint8Array | null;
}

/**
 * Recent filters remembered per partition. A search runs several paths (one per group of memory
 * types, each with a priority pass), so this must cover all of one search's filters or each
 * search re-tests every row for each of them.
 */
const FILTER_MEMORY = 16;

/** Extra candidates fetched from the float32 SIMD search before exact float64 re-scoring. */
export const RESCORE_MARGIN = 8;
/** Below this share of matching rows, a group of a grouped search scans its gathered vectors. */
const GROUP_GATHER_BELOW = 0.6;
/** Below this share of matching rows, matching vectors are gathered and searched alone. */
const GATHER_BELOW = 0.2;
/** Queries (midpoints of two stored rows) on which the int8 pre-selection is checked. */
const Q8_CHECK_QUERIES = 16;
/** Depth of that check: the size of the recall's dense pool for a limit of 10. */
const Q8_CHECK_DEPTH = 100;

/** A row's document by its pk, as some analyzer makes it (null when it is not known). */
export type DocumentOf = (pk: number) => TermDocument | null;

/** How a {@link VectorPartition} search runs, beyond its query, limit and filter. */
export interface SlotSearchOptions {
  /** Threads of the native scan (0 = all cores). @default 0 */
  threads?: number | undefined;
  /** Below this share of matching rows, the matching vectors are gathered and searched alone. @default 0.2 */
  gatherBelow?: number | undefined;
  /** Gives each candidate its document, by its row's pk. @default none */
  documentOf?: DocumentOf | null | undefined;
}

/** Options of a {@link VectorPartition}. */
export interface VectorPartitionOptions {
  /**
   * From this many rows on, a int8 copy of the unit vectors is kept and scanned first (4x less
   * memory traffic); the best candidates are then re-scored exactly from the float32 vectors.
   * `Infinity` disables it.
   */
  quantizeAbove: number;
  /** Where the float32 vectors live (WebAssembly memory once large). @default RowVectors' defaults */
  rows?: RowVectorsOptions | undefined;
}

/**
 * The vectors of one (tenant, embedding model, dim, user-or-all) partition, unit-normalised in
 * one contiguous Float32Array so a query is one native SIMD scan (usearch exact search, inner
 * product = cosine). Removal swaps the last row into the hole, so the array stays dense.
 *
 * Large partitions also keep an int8 copy (scale = 127 / largest absolute component, so nothing
 * is ever clipped). The int8 scan selects `preselected(limit + 8)` candidates (a quarter more, at
 * least 32), which are re-scored in float64 from the float32 vectors: the returned order and
 * cosines are exact whenever the true top-`limit` is among those candidates (the benchmark
 * measures how often).
 * The int8 copy is kept only if it passes a check on the partition's own rows (see `q8Holds`).
 */
export class VectorPartition {
  readonly dim: number;
  private readonly quantizeAbove: number;
  /** The unit vectors, by slot (large partitions keep them in WebAssembly memory, see `RowVectors`). */
  private readonly vectors: RowVectors;
  /** `squaredNorm` of each row, as `cosine` sums it: exact cosines of stored vectors need only the dot product. */
  private norms: Float64Array;
  private q8: Int8Array | null = null;
  private q8Scale = 0;
  private maxAbs = 0;
  /** Rows when the int8 copy was last checked, and whether that check failed. */
  private q8CheckedAt = 0;
  private q8Rejected = false;
  private ids: string[] = [];
  private metas: SlotMeta[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly slotOfPk = new PkMap();
  /** Rows whose unit vector is not bit for bit the vector they were given (see {@link storedVectors}). */
  private readonly rescaled = new Set<string>();
  private readonly statusCounts = new Map<string, number>();
  /** Rows with an end of validity, and the latest start seen (never lowered): see {@link coversValidAt}. */
  private endedRows = 0;
  private latestValidFrom = '';
  private bulk = false;
  /** Bumped by every change to the rows, so remembered filter matches know when they are stale. */
  private version = 0;
  private readonly filterMatches = new RecentlyUsed<FilterMatch>(FILTER_MEMORY);
  /** Monotonic use counter for LRU eviction. */
  lastUsed = 0;

  constructor(dim: number, capacity = 64, options: VectorPartitionOptions = { quantizeAbove: Infinity }) {
    this.dim = dim;
    this.quantizeAbove = options.quantizeAbove;
    this.vectors = new RowVectors(dim, Math.max(1, capacity), options.rows);
    this.norms = new Float64Array(Math.max(1, capacity));
  }

  get size(): number {
    return this.ids.length;
  }

  /** Every slot's unit vector, `dim` values each (a view: read it again after an upsert). */
  private get data(): Float32Array {
    return this.vectors.data;
  }

  /** True when searches pre-select candidates with the int8 copy. */
  get quantized(): boolean {
    return this.q8 !== null;
  }

  /** Approximate heap bytes held. */
  get bytes(): number {
    let remembered = 0;
    for (const m of this.filterMatches.values())
      remembered += m.matching.length * 8 + (m.gathered?.byteLength ?? 0) + (m.mask?.byteLength ?? 0);
    return this.vectors.bytes + this.norms.byteLength + (this.q8?.byteLength ?? 0) + this.ids.length * 160 + remembered;
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
      if (slot + 1 > this.vectors.capacity) {
        this.vectors.reserve(slot + 1);
        const rows = this.vectors.capacity;
        const norms = new Float64Array(rows);
        norms.set(this.norms);
        this.norms = norms;
        if (this.q8 !== null) {
          const grownQ = new Int8Array(rows * this.dim);
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
    const data = this.data;
    if (!writeNormalized(data, slot * this.dim, vector)) {
      this.remove(id);
      return;
    }
    if (sameValues(data, slot * this.dim, vector)) this.rescaled.delete(id);
    else this.rescaled.add(id);
    this.norms[slot] = squaredNorm(data, slot * this.dim, this.dim);
    let rowMax = 0;
    for (let i = slot * this.dim, end = i + this.dim; i < end; i++)
      rowMax = Math.max(rowMax, Math.abs(data[i] as number));
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
    const scan = (query: Float32Array) => {
      const input = this.scanInput(query);
      return { dataset: input.dataset(n), query: input.query };
    };
    return int8PreselectionHolds(this.data.subarray(0, n * this.dim), this.dim, scan, {
      depth: Math.min(n, Q8_CHECK_DEPTH),
      queries: Q8_CHECK_QUERIES,
      preselect: (depth) => Math.min(n, preselected(depth + RESCORE_MARGIN)),
    });
  }

  /** Runs many upserts, building the int8 copy once at the end instead of along the way. */
  bulkLoad(load: () => void): void {
    this.beginBulk();
    try {
      load();
    } finally {
      this.endBulk();
    }
  }

  /** Starts a bulk load spread over several calls (see {@link bulkLoad}); {@link endBulk} ends it. */
  beginBulk(): void {
    this.bulk = true;
  }

  endBulk(): void {
    this.bulk = false;
    if (this.q8 === null) this.maybeQuantize();
  }

  private buildQ8(): void {
    this.version++;
    this.q8 = new Int8Array(this.vectors.capacity * this.dim);
    this.q8Scale = this.maxAbs > 0 ? 127 / this.maxAbs : 1;
    for (let slot = 0; slot < this.ids.length; slot++) this.quantizeRow(slot);
  }

  private quantizeRow(slot: number): void {
    const q8 = this.q8 as Int8Array;
    const { data, q8Scale: scale } = this;
    for (let i = slot * this.dim, end = i + this.dim; i < end; i++) q8[i] = Math.round((data[i] as number) * scale);
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
      this.norms[slot] = this.norms[last] as number;
      this.q8?.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.ids[slot] = lastId;
      this.metas[slot] = lastMeta;
      this.slotOf.set(lastId, slot);
      this.slotOfPk.set(lastMeta.pk, slot);
    }
    this.ids.pop();
    this.metas.pop();
    this.slotOf.delete(id);
    this.rescaled.delete(id);
    return true;
  }

  /**
   * Copies of the vectors the rows were given, for the ids whose cached unit vector is that vector
   * bit for bit (already unit length, as embedders' vectors usually are; others, and rows not
   * cached, are absent). Lets the store answer `getVectors` without reading and decoding blobs.
   * The copies share one new buffer, each its own range: one allocation, not one per row (a search
   * asks for hundreds).
   */
  storedVectors(ids: readonly string[]): Map<string, Float32Array> {
    const found: Array<[string, number]> = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined && !this.rescaled.has(id)) found.push([id, slot]);
    }
    const dim = this.dim;
    const out = new Map<string, Float32Array>();
    const buffer = new Float32Array(found.length * dim);
    found.forEach(([id, slot], j) => {
      buffer.set(this.data.subarray(slot * dim, (slot + 1) * dim), j * dim);
      out.set(id, buffer.subarray(j * dim, (j + 1) * dim));
    });
    return out;
  }

  /**
   * `maxCosine` of the stored vectors of these ids over `queries`, bit for bit, for the rows whose
   * cached unit vector is that vector (see {@link storedVectors}; the others are absent), computed
   * in place from the rows and their kept norms.
   */
  storedCosines(ids: readonly string[], queries: readonly Float32Array[]): Map<string, number> {
    const slots = ids.map((id) => this.slotOf.get(id));
    const cosines = this.storedCosinesOfSlots(slots, queries);
    const out = new Map<string, number>();
    ids.forEach((id, i) => {
      const cosine = cosines[i];
      if (cosine !== undefined) out.set(id, cosine);
    });
    return out;
  }

  /**
   * {@link storedCosines} of the rows with these `memories.pk`s, in their order (undefined where
   * the partition does not hold the row or holds it rescaled): no id is hashed or compared.
   */
  storedCosinesOfPks(pks: readonly number[], queries: readonly Float32Array[]): Array<number | undefined> {
    return this.storedCosinesOfSlots(
      pks.map((pk) => this.slotOfPk.get(pk)),
      queries,
    );
  }

  private storedCosinesOfSlots(
    slots: ReadonlyArray<number | undefined>,
    queries: readonly Float32Array[],
  ): Array<number | undefined> {
    const rows: number[] = [];
    const squaredNorms: number[] = [];
    const at = slots.map((slot) => {
      if (slot === undefined || (this.rescaled.size > 0 && this.rescaled.has(this.ids[slot] as string))) return -1;
      rows.push(slot);
      squaredNorms.push(this.norms[slot] as number);
      return rows.length - 1;
    });
    const { vectors } = this;
    const dots = (query: Float32Array) => vectors.sequentialDots(rows, query);
    const cosines = maxCosinesOfRows({ data: vectors.data, dim: this.dim, rows, squaredNorms, dots }, queries);
    return at.map((j) => (j < 0 ? undefined : (cosines[j] as number)));
  }

  /**
   * Top-`limit` by cosine among rows accepted by `accept`. `query` must be unit length.
   * Cosines are re-computed in float64 from the cached unit vectors (so they match a JS cosine of
   * the stored vectors to ~1e-7); ties break by id.
   */
  search(
    query: Float32Array,
    limit: number,
    filter: SlotFilter | null,
    options: SlotSearchOptions = {},
  ): DenseCandidate[] {
    const { threads = 0, gatherBelow = GATHER_BELOW, documentOf = null } = options;
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
      } else if (m / n < gatherBelow) {
        match.gathered ??= this.gather(scan.dataset(n), match.matching);
        const matching = match.matching;
        slots = this.topSlots(match.gathered, scan.query, Math.min(m, want), threads).map((j) => matching[j] as number);
      } else {
        slots = this.overFetchSearch(scan, Math.min(m, want), matchMask(match, n), threads);
      }
    }
    return this.scoreSlots(slots, query, limit, documentOf);
  }

  /**
   * Several {@link search}es of one query, each group scanning only its own rows: result `i` is
   * `search(query, groups[i].limit, groups[i].filter)`, except that groups of up to
   * {@link GROUP_GATHER_BELOW} of the rows search their gathered vectors instead of over-fetching
   * from every row (the same candidates, unless two rows tie in the scan at a group's last one).
   * Disjoint groups thus read each row once.
   */
  searchGroups(
    query: Float32Array,
    groups: ReadonlyArray<{ limit: number; filter: SlotFilter | null }>,
    options: Omit<SlotSearchOptions, 'gatherBelow'> = {},
  ): DenseCandidate[][] {
    return groups.map((g) => this.search(query, g.limit, g.filter, { ...options, gatherBelow: GROUP_GATHER_BELOW }));
  }

  /**
   * Top-`limit` by cosine among the given ids (those cached and accepted by `filter`), looked up
   * directly: the cost follows the number of ids, not the partition size.
   */
  searchIds(
    query: Float32Array,
    ids: Iterable<string>,
    limit: number,
    filter: SlotFilter | null,
    documentOf: DocumentOf | null = null,
  ): DenseCandidate[] {
    const slots: number[] = [];
    const seen = new Set<number>();
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined || seen.has(slot)) continue;
      seen.add(slot);
      if (filter === null || filter.test(id, this.metas[slot] as SlotMeta)) slots.push(slot);
    }
    return this.scoreSlots(slots, query, limit, documentOf);
  }

  /**
   * The cosine with a unit `query` of each row with these `memories.pk`s, as {@link search} scores
   * it (strided float64 dots of the cached unit vectors); undefined for a row the partition does
   * not hold.
   */
  cosinesOfPks(pks: readonly number[], query: Float32Array): Array<number | undefined> {
    const slots: number[] = [];
    const at = pks.map((pk) => {
      const slot = this.slotOfPk.get(pk);
      if (slot === undefined) return -1;
      slots.push(slot);
      return slots.length - 1;
    });
    const cosines = slots.length === 0 ? new Float64Array(0) : this.vectors.stridedDots(slots, query);
    return at.map((j) => (j < 0 ? undefined : (cosines[j] as number)));
  }

  /** The best `limit` of these slots by cosine (then id), each with its document when `documentOf` knows it. */
  private scoreSlots(
    slots: readonly number[],
    query: Float32Array,
    limit: number,
    documentOf: DocumentOf | null,
  ): DenseCandidate[] {
    const cosines = this.vectors.stridedDots(slots, query);
    const { ids, metas } = this;
    const order = Array.from(slots, (_, j) => j);
    order.sort((a, b) => {
      const byCosine = (cosines[b] as number) - (cosines[a] as number);
      if (byCosine !== 0) return byCosine;
      const idA = ids[slots[a] as number] as string;
      const idB = ids[slots[b] as number] as string;
      return idA < idB ? -1 : idA > idB ? 1 : 0;
    });
    return order.slice(0, limit).map((j) => {
      const slot = slots[j] as number;
      const meta = metas[slot] as SlotMeta;
      const candidate: DenseCandidate = {
        id: ids[slot] as string,
        cosine: cosines[j] as number,
        updatedAt: meta.updatedAt,
        type: meta.type,
      };
      const document = documentOf?.(meta.pk);
      if (document) candidate.document = document;
      return candidate;
    });
  }

  /** Slots accepted by `filter`, remembered (with their gathered vectors) until the rows change. */
  private match(filter: SlotFilter): FilterMatch {
    return this.filterMatches.take(
      filter.key,
      () => {
        const matching: number[] = [];
        for (let i = 0; i < this.ids.length; i++)
          if (filter.test(this.ids[i] as string, this.metas[i] as SlotMeta)) matching.push(i);
        return { version: this.version, matching, gathered: null, mask: null };
      },
      (known) => known.version === this.version,
    );
  }

  /** The array to scan (int8 copy or float32 vectors) and the query in the same representation. */
  private scanInput(query: Float32Array): {
    query: Float32Array | Int8Array;
    dataset(rows: number): Float32Array | Int8Array;
  } {
    const q8 = this.q8;
    if (q8 === null) return { query, dataset: (rows) => this.data.subarray(0, rows * this.dim) };
    return { query: int8Query(query), dataset: (rows) => q8.subarray(0, rows * this.dim) };
  }

  private topSlots(
    dataset: Float32Array | Int8Array,
    query: Float32Array | Int8Array,
    k: number,
    threads: number,
  ): number[] {
    return topSlots(dataset, query, this.dim, k, threads);
  }

  private gather(source: Float32Array | Int8Array, matching: number[]): Float32Array | Int8Array {
    return gatherRows(source, this.dim, matching);
  }

  private overFetchSearch(
    scan: ReturnType<VectorPartition['scanInput']>,
    k: number,
    mask: { bits: Uint8Array; matching: number },
    threads: number,
  ): number[] {
    const n = this.ids.length;
    const { bits, matching } = mask;
    const ok = (slot: number): boolean => bits[slot] === 1;
    return overFetchTop(scan.dataset(n), scan.query, { dim: this.dim, rows: n, matching, k, threads }, ok);
  }
}

/** The match's slots as a mask over `rows` slots (remembered with it), and how many match. */
function matchMask(match: FilterMatch, rows: number): { bits: Uint8Array; matching: number } {
  if (match.mask === null) {
    match.mask = new Uint8Array(rows);
    for (const slot of match.matching) match.mask[slot] = 1;
  }
  return { bits: match.mask, matching: match.matching.length };
}

/** Whether `data` holds exactly the values of `vector` from `offset` on. */
function sameValues(data: Float32Array, offset: number, vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (data[offset + i] !== vector[i]) return false;
  return true;
}
