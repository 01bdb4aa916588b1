import usearch from 'usearch';
import { unitVector } from '../../vector/unit-cosine.js';

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Scans over a partition's contiguous rows of unit vectors (float32, or their int8 copy). */

/** Candidates the int8 scan selects for an exact top-`exact` (re-scoring reads each one's row). */
export function preselected(exact: number): number {
  return Math.max(2 * exact, exact + 64);
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

/** The dot product of row `slot` of `data` (rows of `dim`) with `query`, clamped to [-1, 1]; 0 when not finite. */
export function dotAt(data: Float32Array, dim: number, slot: number, query: Float32Array): number {
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
  return clampedSum(s0, s1, s2, s3);
}

/** The four partial sums of {@link dotAt} added in its order, clamped to [-1, 1]; 0 when not finite. */
function clampedSum(s0: number, s1: number, s2: number, s3: number): number {
  const sum = s0 + s1 + (s2 + s3);
  if (!Number.isFinite(sum)) return 0;
  return sum > 1 ? 1 : sum < -1 ? -1 : sum;
}

/**
 * {@link dotAt} of each of `slots`, bit for bit: two rows are summed side by side (each with
 * `dotAt`'s four partial sums in its order), so each query value is read once for both.
 */
export function dotsAt(data: Float32Array, dim: number, slots: readonly number[], query: Float32Array): Float64Array {
  const out = new Float64Array(slots.length);
  let j = 0;
  for (; j + 1 < slots.length; j += 2) {
    const a = (slots[j] as number) * dim;
    const b = (slots[j + 1] as number) * dim;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let b0 = 0;
    let b1 = 0;
    let b2 = 0;
    let b3 = 0;
    let i = 0;
    for (; i + 3 < dim; i += 4) {
      const x0 = query[i] as number;
      const x1 = query[i + 1] as number;
      const x2 = query[i + 2] as number;
      const x3 = query[i + 3] as number;
      a0 += (data[a + i] as number) * x0;
      a1 += (data[a + i + 1] as number) * x1;
      a2 += (data[a + i + 2] as number) * x2;
      a3 += (data[a + i + 3] as number) * x3;
      b0 += (data[b + i] as number) * x0;
      b1 += (data[b + i + 1] as number) * x1;
      b2 += (data[b + i + 2] as number) * x2;
      b3 += (data[b + i + 3] as number) * x3;
    }
    for (; i < dim; i++) {
      a0 += (data[a + i] as number) * (query[i] as number);
      b0 += (data[b + i] as number) * (query[i] as number);
    }
    out[j] = clampedSum(a0, a1, a2, a3);
    out[j + 1] = clampedSum(b0, b1, b2, b3);
  }
  if (j < slots.length) out[j] = dotAt(data, dim, slots[j] as number, query);
  return out;
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
