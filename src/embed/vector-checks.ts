import { EngramError } from '../model/errors.js';

/**
 * Checks a batch of vectors from an embedder: one per text, all of one dimension (the expected
 * one when given), finite values only. Throws EngramError('EMBEDDER_ERROR') naming the culprit.
 */
export function checkVectors(
  vectors: readonly Float32Array[],
  expectedCount: number,
  expectedDim: number | undefined,
  source: string,
): void {
  if (vectors.length !== expectedCount) {
    throw new EngramError('EMBEDDER_ERROR', `${source} returned ${vectors.length} vectors for ${expectedCount} texts`, {
      details: { expected: expectedCount, actual: vectors.length },
    });
  }
  const dim = expectedDim ?? vectors[0]?.length;
  vectors.forEach((v, i) => {
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
