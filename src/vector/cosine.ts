/**
 * Cosine similarity with the reference's guards: 0 when lengths differ, when either vector is
 * all zeros, or when the result is not finite. Never NaN, never throws.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  const value = dot / (Math.sqrt(na) * Math.sqrt(nb));
  return Number.isFinite(value) ? value : 0;
}
