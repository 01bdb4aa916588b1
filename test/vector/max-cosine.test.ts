import { describe, expect, it } from 'vitest';

import { maxCosine, maxCosines, maxCosinesOfRows, squaredNorm } from '../../src/vector/max-cosine.js';

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

describe('maxCosinesOfRows', () => {
  const dim = 24;
  const stored = vectors(11, dim, 17);
  stored[3] = new Float32Array(dim);
  stored[5] = Float32Array.from(stored[5] as Float32Array, (x, i) => (i === 2 ? Number.NaN : x * 7));
  const data = new Float32Array(stored.length * dim);
  stored.forEach((v, r) => data.set(v, r * dim));
  const scored = (rows: number[]) => ({ data, dim, rows, squaredNorms: rows.map((r) => squaredNorm(data, r * dim, dim)) });

  it('gives maxCosine of the chosen rows bit for bit, in their order, repeats and odd counts included', () => {
    const rows = [10, 0, 3, 5, 5, 7, 1, 2, 9];
    for (const queries of [vectors(1, dim, 19), vectors(4, dim, 23)]) {
      const fast = maxCosinesOfRows(scored(rows), queries);
      rows.forEach((r, j) => expect(Object.is(fast[j], maxCosine(stored[r] as Float32Array, queries))).toBe(true));
    }
  });

  it('gives 0 for queries of another length, zero queries and none at all, as maxCosine does', () => {
    const rows = [0, 1, 2, 4, 6];
    for (const queries of [[new Float32Array(dim + 1)], [new Float32Array(dim)], [], [new Float32Array(dim), ...vectors(1, dim, 29)]]) {
      const fast = maxCosinesOfRows(scored(rows), queries);
      rows.forEach((r, j) => expect(fast[j]).toBe(maxCosine(stored[r] as Float32Array, queries)));
    }
    expect([...maxCosinesOfRows(scored(rows), [])]).toEqual([0, 0, 0, 0, 0]);
  });

  it('squaredNorm sums a range of an array in index order', () => {
    const v = Float32Array.of(9, 1, 2, 3, 9);
    expect(squaredNorm(v, 1, 3)).toBe(14);
    expect(squaredNorm(v)).toBe(176);
  });
});
