import { EngramError } from '../model/errors.js';

/**
 * Checks a batch of vectors from an embedder: an array of Float32Arrays, one per text, all of one
 * dimension (the expected one when given), finite values only. Throws EngramError('EMBEDDER_ERROR')
 * naming the culprit: what an embedder gets wrong is never taken for the caller's mistake.
 */
export function checkVectors(
  vectors: unknown,
  expectedCount: number,
  expectedDim: number | undefined,
  source: string,
): asserts vectors is Float32Array[] {
  if (!Array.isArray(vectors)) {
    throw new EngramError('EMBEDDER_ERROR', `${source} returned ${describe(vectors)}, not an array of vectors`);
  }
  vectors.forEach((v: unknown, i) => {
    if (!(v instanceof Float32Array)) {
      throw new EngramError('EMBEDDER_ERROR', `${source} returned ${describe(v)} at index ${i}, not a Float32Array`, {
        details: { index: i },
      });
    }
  });
  if (vectors.length !== expectedCount) {
    throw new EngramError('EMBEDDER_ERROR', `${source} returned ${vectors.length} vectors for ${expectedCount} texts`, {
      details: { expected: expectedCount, actual: vectors.length },
    });
  }
  const dim = expectedDim ?? (vectors[0] as Float32Array | undefined)?.length;
  (vectors as Float32Array[]).forEach((v, i) => {
    if (v.length === 0 || v.length !== dim) {
      throw new EngramError(
        'EMBEDDER_ERROR',
        `${source} returned a vector of dimension ${v.length} at index ${i}, expected ${String(dim)}`,
        { details: { index: i, expected: dim, actual: v.length } },
      );
    }
    for (let k = 0; k < v.length; k++) {
      if (!Number.isFinite(v[k])) {
        throw new EngramError('EMBEDDER_ERROR', `${source} returned a non-finite value at index ${i}[${k}]`, {
          details: { index: i, position: k },
        });
      }
    }
  });
}

/** What a value is, for an error message (`null`, `an array`, `a Float64Array`, `a string`…). */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  if (Array.isArray(value)) return 'an array';
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an object';
}
