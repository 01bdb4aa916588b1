import { describe, expect, it } from 'vitest';

import { maxCosine, maxCosines } from '../../src/search/paths/max-cosine.js';

/** Deterministic values in [-1, 1) (xorshift), so a failure replays. */
function vectors(count: number, dim: number, seed: number): Float32Array[] {
  let state = seed;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 2 ** 32) * 2 - 1;
  };
  return Array.from({ length: count }, () => Float32Array.from({ length: dim }, next));
}

describe('maxCosines', () => {
  it('gives maxCosine of each vector bit for bit, over one and several queries (sets not a multiple of four)', () => {
    for (const count of [1, 4, 203]) {
      const stored = vectors(count, 96, 7 + count);
      for (const queries of [vectors(1, 96, 11), vectors(3, 96, 13)]) {
        const fast = maxCosines(stored, queries);
        stored.forEach((v, i) => expect(Object.is(fast[i], maxCosine(v, queries))).toBe(true));
      }
    }
  });

  it('keeps the guards: zero vectors, other lengths and no queries give what maxCosine gives', () => {
    const [q] = vectors(1, 8, 3) as [Float32Array];
    const odd = [
      new Float32Array(8),
      new Float32Array(4).fill(0.5),
      Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0),
      ...vectors(3, 8, 5),
    ];
    for (const queries of [[q], [new Float32Array(8), q], []]) {
      const fast = maxCosines(odd, queries);
      odd.forEach((v, i) => expect(fast[i]).toBe(maxCosine(v, queries)));
    }
    expect(maxCosines([new Float32Array(8)], [new Float32Array(8)])).toEqual([0]);
  });
});
