import { cosine } from './cosine.js';
import { sequentialDots } from './sequential-dots.js';

/** The best cosine of `vector` with any of the query vectors (0 when there are none). */
export function maxCosine(vector: Float32Array, queries: readonly Float32Array[]): number {
  let best = 0;
  let first = true;
  for (const q of queries) {
    const c = cosine(q, vector);
    if (first || c > best) best = c;
    first = false;
  }
  return best;
}

/** The sum of the squared components in index order, as `cosine` sums a vector's norm. */
export function squaredNorm(v: ArrayLike<number>, offset = 0, length = v.length - offset): number {
  let sum = 0;
  for (let i = offset, end = offset + length; i < end; i++) sum += (v[i] as number) * (v[i] as number);
  return sum;
}

/** Rows of one array, and the squared norm of each (see {@link maxCosinesOfRows}). */
export interface VectorRows {
  /** Rows of `dim` values, one after another. */
  data: Float32Array;
  dim: number;
  /** Which rows, by index into `data`. */
  rows: ArrayLike<number>;
  /** `squaredNorm` of each of those rows, in the same order. */
  squaredNorms: ArrayLike<number>;
  /**
   * The dot product of each of those rows with a query of `dim` values, summed as
   * {@link sequentialDots} sums it (bit for bit). @default sequentialDots over `data`
   */
  dots?: ((query: Float32Array) => ArrayLike<number>) | undefined;
}

/**
 * {@link maxCosine} of each of the given rows, bit for bit: each row's dot product summed in
 * `cosine`'s order ({@link sequentialDots}, or the rows' own `dots`), each query's norm summed
 * once, and the rows' norms come with them.
 */
export function maxCosinesOfRows(
  { data, dim, rows, squaredNorms, dots }: VectorRows,
  queries: readonly Float32Array[],
): Float64Array {
  const n = rows.length;
  const out = new Float64Array(n);
  queries.forEach((q, k) => {
    const na = q.length === dim ? squaredNorm(q) : 0;
    // Another length, or a zero query: cosine 0 for every row.
    const products = na === 0 ? null : dots ? dots(q) : sequentialDots(data, dim, rows, q);
    for (let j = 0; j < n; j++) {
      const nb = squaredNorms[j] as number;
      let c = 0;
      if (products !== null && dim > 0 && nb !== 0) {
        const value = (products[j] as number) / (Math.sqrt(na) * Math.sqrt(nb));
        c = Number.isFinite(value) ? value : 0;
      }
      if (k === 0 || c > (out[j] as number)) out[j] = c;
    }
  });
  return out;
}

/**
 * {@link maxCosine} of each of `vectors`, bit for bit (see {@link maxCosinesOfRows}): the vectors
 * of each length are copied side by side into one array, and scored there.
 */
export function maxCosines(vectors: readonly Float32Array[], queries: readonly Float32Array[]): number[] {
  const out = new Array<number>(vectors.length).fill(0);
  const byLength = new Map<number, number[]>();
  vectors.forEach((v, j) => {
    const members = byLength.get(v.length);
    if (members === undefined) byLength.set(v.length, [j]);
    else members.push(j);
  });
  for (const [dim, members] of byLength) {
    const data = new Float32Array(members.length * dim);
    const squaredNorms = new Float64Array(members.length);
    members.forEach((j, r) => {
      const v = vectors[j] as Float32Array;
      data.set(v, r * dim);
      squaredNorms[r] = squaredNorm(v);
    });
    const rows = Array.from(members, (_, r) => r);
    const cosines = maxCosinesOfRows({ data, dim, rows, squaredNorms }, queries);
    members.forEach((j, r) => (out[j] = cosines[r] as number));
  }
  return out;
}
