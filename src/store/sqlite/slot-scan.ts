import usearch from 'usearch';
import { dotAt } from '../../vector/strided-dots.js';
import { unitVector } from '../../vector/unit-cosine.js';

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Scans over a partition's contiguous rows of unit vectors (float32, or their int8 copy). */

/**
 * Candidates the int8 scan selects for an exact top-`exact`: a quarter more, at least 32. Each
 * one costs a place in the scan's partial sort and a float32 row read to re-score it. Over LoCoMo
 * turns with USE-lite vectors the worst query's exact 100 lie within the int8 top 105 at 10k rows
 * and 107 at 100k (`bench/preselection-depth.ts`), where a search keeps 140; random queries over
 * isotropic random rows of 64 to 1,536 dimensions needed at most 119. A partition keeps its int8
 * copy only if its own rows pass {@link int8PreselectionHolds} with this margin.
 */
export function preselected(exact: number): number {
  return exact + Math.max(32, Math.ceil(exact / 4));
}

/**
 * Writes `source` scaled to unit length into `target` at `offset`; a zero vector stays zero.
 * Returns false (and writes nothing) when a value is not finite.
 */
export function writeNormalized(target: Float32Array, offset: number, source: Float32Array): boolean {
  return unitVector(source, target.subarray(offset, offset + source.length)) !== null;
}

/** The query scaled to use the whole int8 range (only the ranking of an int8 scan matters). */
export function int8Query(query: Float32Array): Int8Array {
  let qMax = 0;
  for (let i = 0; i < query.length; i++) qMax = Math.max(qMax, Math.abs(query[i] as number));
  const scale = qMax > 0 ? 127 / qMax : 1;
  const q = new Int8Array(query.length);
  for (let i = 0; i < query.length; i++) q[i] = Math.round((query[i] as number) * scale);
  return q;
}

/** The `k` rows of `dataset` with the largest inner product with `query` (usearch's exact SIMD scan), best first. */
export function topSlots(
  dataset: Float32Array | Int8Array,
  query: Float32Array | Int8Array,
  dim: number,
  k: number,
  threads: number,
): number[] {
  if (k <= 0) return [];
  const found = usearch.exactSearch(dataset, query, dim, k, usearch.MetricKind.IP, threads);
  const keys = found.keys;
  const count = 'counts' in found ? Number(found.counts[0]) : keys.length;
  const out = new Array<number>(count);
  if (LITTLE_ENDIAN) {
    // Slots are below 2³², so each 64-bit key is its low (first) 32-bit word: read as such,
    // without making a BigInt per key.
    const words = new Uint32Array(keys.buffer, keys.byteOffset, keys.length * 2);
    for (let i = 0; i < count; i++) out[i] = words[2 * i] as number;
  } else for (let i = 0; i < count; i++) out[i] = Number(keys[i]);
  return out;
}

/** The rows `matching` of `source` copied into one contiguous array, in that order. */
export function gatherRows(
  source: Float32Array | Int8Array,
  dim: number,
  matching: readonly number[],
): Float32Array | Int8Array {
  const gathered =
    source instanceof Int8Array ? new Int8Array(matching.length * dim) : new Float32Array(matching.length * dim);
  for (let j = 0; j < matching.length; j++) {
    const slot = matching[j] as number;
    gathered.set(source.subarray(slot * dim, (slot + 1) * dim), j * dim);
  }
  return gathered;
}

/**
 * The best `k` rows accepted by `accept` (about `matching` of `rows` are), by over-fetching from a
 * scan of every row: 1.5× the expected share plus 16, four times more until `k` are found.
 */
export function overFetchTop(
  dataset: Float32Array | Int8Array,
  query: Float32Array | Int8Array,
  shape: { dim: number; rows: number; matching: number; k: number; threads: number },
  accept: (slot: number) => boolean,
): number[] {
  const { dim, rows: n, matching: m, k, threads } = shape;
  let fetch = Math.min(n, Math.ceil((k * n * 1.5) / m) + 16);
  for (;;) {
    const out: number[] = [];
    for (const slot of topSlots(dataset, query, dim, fetch, threads)) {
      if (accept(slot)) {
        out.push(slot);
        if (out.length === k) return out;
      }
    }
    if (fetch >= n) return out;
    fetch = Math.min(n, fetch * 4);
  }
}

/**
 * Whether an int8 pre-selection finds the exact top `depth` of `data` (unit rows of `dim`) for
 * queries halfway between two stored rows (deterministic picks). Int8 with one scale for every
 * dimension loses the signal when all rows share a few large components (an anisotropic embedding
 * model): such partitions keep scanning float32 and stay exact. `scan` gives the int8 dataset and
 * query; `preselect` how many candidates the int8 scan keeps for an exact `depth`.
 */
export function int8PreselectionHolds(
  data: Float32Array,
  dim: number,
  scan: (query: Float32Array) => { dataset: Float32Array | Int8Array; query: Float32Array | Int8Array },
  check: { depth: number; queries: number; preselect: (depth: number) => number },
): boolean {
  const n = data.length / dim;
  let state = n >>> 0 || 1;
  const nextSlot = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  const query = new Float32Array(dim);
  for (let k = 0; k < check.queries; k++) {
    const a = nextSlot() * dim;
    const b = nextSlot() * dim;
    for (let i = 0; i < dim; i++) query[i] = (data[a + i] as number) + (data[b + i] as number);
    if (!writeNormalized(query, 0, query) || query.every((v) => v === 0)) continue;
    const exact = topSlots(data, query, dim, check.depth, 1);
    const input = scan(query);
    const found = new Set(topSlots(input.dataset, input.query, dim, check.preselect(check.depth), 1));
    // A row missed only because it ties the last one (duplicates) does not count against int8.
    const last = dotAt(data, dim, exact[exact.length - 1] as number, query);
    if (exact.some((slot) => !found.has(slot) && dotAt(data, dim, slot, query) - last > 1e-6)) return false;
  }
  return true;
}
