/**
 * The floor: a plain exact scan over a contiguous Float32Array of unit-length rows
 * (dot product = cosine), keeping the top k in a small sorted buffer.
 */
export function exactTopK(
  matrix: Float32Array,
  dim: number,
  query: Float32Array,
  k: number,
): Array<{ index: number; score: number }> {
  const rows = matrix.length / dim;
  const idx = new Int32Array(k).fill(-1);
  const best = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
  for (let r = 0; r < rows; r++) {
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
