/**
 * The cosine every store reports for dense candidates: both vectors are scaled to unit length into
 * float32, then their dot product is summed in float64 and clamped to [-1, 1]. Every backend uses
 * this same arithmetic (not just "a" cosine), which is what makes them return bit-identical scores
 * and therefore the same order at near-ties and at the candidate-pool boundary;
 * test/store/same-answers.test.ts fails if they drift apart.
 */

/** `source` scaled to unit length, as float32; a zero vector stays zero. Null when not finite. */
export function unitVector(
  source: Float32Array,
  target: Float32Array = new Float32Array(source.length),
): Float32Array | null {
  let norm = 0;
  for (let i = 0; i < source.length; i++) {
    const v = source[i] as number;
    norm += v * v;
  }
  if (!Number.isFinite(norm)) return null;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < source.length; i++) target[i] = (source[i] as number) * scale;
  return target;
}

/** float64 dot product of two unit float32 vectors, clamped to [-1, 1]; 0 when not finite or lengths differ. */
export function unitDot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return Number.isFinite(dot) ? Math.max(-1, Math.min(1, dot)) : 0;
}
