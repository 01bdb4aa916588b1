import type { Pooling } from './onnx-model-folder.js';

/**
 * One sentence vector per row of token vectors `hidden` ([rows, len, dim], row-major) with
 * `lengths[r]` real tokens at the start of row r (right padding): mean or max over the real
 * tokens, the first token (`cls`) or the last real one (`last`).
 */
export function poolTokens(
  hidden: Float32Array,
  lengths: readonly number[],
  len: number,
  dim: number,
  pooling: Pooling,
): Float32Array[] {
  return lengths.map((n, r) => {
    const out = new Float32Array(dim);
    const row = r * len * dim;
    const count = Math.max(1, Math.min(n, len));
    if (pooling === 'cls' || pooling === 'last') {
      const at = row + (pooling === 'cls' ? 0 : count - 1) * dim;
      out.set(hidden.subarray(at, at + dim));
      return out;
    }
    if (pooling === 'max') out.fill(Number.NEGATIVE_INFINITY);
    for (let j = 0; j < count; j++) {
      const at = row + j * dim;
      for (let k = 0; k < dim; k++) {
        const v = hidden[at + k] ?? 0;
        out[k] = pooling === 'max' ? Math.max(out[k] ?? v, v) : (out[k] ?? 0) + v;
      }
    }
    if (pooling === 'mean') for (let k = 0; k < dim; k++) out[k] = (out[k] ?? 0) / count;
    return out;
  });
}

/** Scales a vector to unit length in place (left as is when all zero). */
export function l2NormalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) * scale;
  }
  return v;
}
