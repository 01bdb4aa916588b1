/**
 * The one exact-scan reference of the benches (the floor of the speed bench, the truth of the
 * exactness checks): a plain scan over a contiguous Float32Array of unit-length rows
 * (dot product = cosine, accumulated in float64), keeping the top k in a small sorted buffer.
 * Ties keep the lower row first. `rows` restricts the scan to those row numbers (a filter).
 */
export function exactTopK(
  matrix: Float32Array,
  dim: number,
  query: Float32Array,
  k: number,
  rows?: ArrayLike<number>,
): Array<{ index: number; score: number }> {
  const count = rows === undefined ? matrix.length / dim : rows.length;
  const idx = new Int32Array(k).fill(-1);
  const best = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
  for (let j = 0; j < count; j++) {
    const r = rows === undefined ? j : (rows[j] as number);
    let s = 0;
    const off = r * dim;
    for (let d = 0; d < dim; d++) s += (matrix[off + d] as number) * (query[d] as number);
    if (s <= (best[k - 1] as number)) continue;
    let p = k - 1;
    while (p > 0 && (best[p - 1] as number) < s) {
      best[p] = best[p - 1] as number;
      idx[p] = idx[p - 1] as number;
      p -= 1;
    }
    best[p] = s;
    idx[p] = r;
  }
  const out: Array<{ index: number; score: number }> = [];
  for (let i = 0; i < k; i++)
    if ((idx[i] as number) >= 0) out.push({ index: idx[i] as number, score: best[i] as number });
  return out;
}
