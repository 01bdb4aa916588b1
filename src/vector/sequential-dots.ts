/**
 * The dot product of `query` with each of the given rows of `data` (rows of `dim` values), each
 * summed one component after another in index order, as `cosine` sums it, bit for bit. That sum
 * is bound by the latency of each addition, not by the arithmetic, so four rows are summed side
 * by side (four independent chains, each in that order).
 */
export function sequentialDots(
  data: Float32Array,
  dim: number,
  rows: ArrayLike<number>,
  query: Float32Array,
): Float64Array {
  const n = rows.length;
  const out = new Float64Array(n);
  let j = 0;
  for (; j + 3 < n; j += 4) {
    const a = (rows[j] as number) * dim;
    const b = (rows[j + 1] as number) * dim;
    const c = (rows[j + 2] as number) * dim;
    const d = (rows[j + 3] as number) * dim;
    let da = 0;
    let db = 0;
    let dc = 0;
    let dd = 0;
    for (let i = 0; i < dim; i++) {
      const x = query[i] as number;
      da += x * (data[a + i] as number);
      db += x * (data[b + i] as number);
      dc += x * (data[c + i] as number);
      dd += x * (data[d + i] as number);
    }
    out[j] = da;
    out[j + 1] = db;
    out[j + 2] = dc;
    out[j + 3] = dd;
  }
  for (; j < n; j++) {
    const a = (rows[j] as number) * dim;
    let dot = 0;
    for (let i = 0; i < dim; i++) dot += (query[i] as number) * (data[a + i] as number);
    out[j] = dot;
  }
  return out;
}
