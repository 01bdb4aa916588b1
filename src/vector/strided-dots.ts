/**
 * The strided dot product: four partial sums, the `k`-th over the components `i ≡ k (mod 4)`
 * while four remain and the rest into the first, added as `(s0 + s1) + (s2 + s3)`. Independent
 * additions pipeline better than one chain. This is the JavaScript form; `RowVectors` computes the
 * same sums, bit for bit, in WebAssembly SIMD where its rows live there.
 */

/** The dot product of row `slot` of `data` (rows of `dim`) with `query`, clamped to [-1, 1]; 0 when not finite. */
export function dotAt(data: Float32Array, dim: number, slot: number, query: Float32Array): number {
  const base = slot * dim;
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

/** The four partial sums of {@link dotAt} added in its order, clamped (see {@link clampDot}). */
function clampedSum(s0: number, s1: number, s2: number, s3: number): number {
  return clampDot(s0 + s1 + (s2 + s3));
}

/** A dot product of unit vectors clamped to [-1, 1]; 0 when not finite. */
export function clampDot(sum: number): number {
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
