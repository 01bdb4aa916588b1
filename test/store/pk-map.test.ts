import { describe, expect, it } from 'vitest';

import { PkMap } from '../../src/store/sqlite/pk-map.js';

/** A deterministic stream of 32-bit values (xorshift). */
function randoms(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

describe('PkMap', () => {
  it('answers like a Map through random sets, overwrites and deletes, growing past its first size', () => {
    const next = randoms(7);
    const map = new PkMap();
    const reference = new Map<number, number>();
    // Keys from a small range so that overwrites, deletes of present keys and long probe runs all happen;
    // a few beyond 2^32 and negative so both halves of the hash and the sign are exercised.
    const keyAt = (r: number): number => {
      const k = r % 3000;
      return k % 97 === 0 ? k * 4294967296 + 5 : k % 89 === 0 ? -k : k;
    };
    for (let step = 0; step < 60_000; step++) {
      const pk = keyAt(next());
      if (next() % 3 === 0) expect(map.delete(pk)).toBe(reference.delete(pk));
      else {
        const value = next() % 100_000;
        map.set(pk, value);
        reference.set(pk, value);
      }
      if (step % 5000 === 0) {
        expect(map.size).toBe(reference.size);
        for (let k = -3000; k < 3000; k++) expect(map.get(keyAt(k + 3000))).toBe(reference.get(keyAt(k + 3000)));
      }
    }
    expect(map.size).toBe(reference.size);
    for (const [pk, value] of reference) expect(map.get(pk)).toBe(value);
  });

  it('finds every key after deleting every third of 5,000 (a table up to half full, so probe runs form)', () => {
    const map = new PkMap();
    for (let pk = 1; pk <= 5000; pk++) map.set(pk, pk * 2);
    for (let pk = 3; pk <= 5000; pk += 3) expect(map.delete(pk)).toBe(true);
    for (let pk = 1; pk <= 5000; pk++) expect(map.get(pk)).toBe(pk % 3 === 0 ? undefined : pk * 2);
    expect(map.size).toBe(5000 - Math.floor(5000 / 3));
    expect(map.delete(3)).toBe(false);
  });

  it('gives memory back as it empties, still finding what is left', () => {
    const map = new PkMap();
    const empty = map.bytes;
    for (let pk = 1; pk <= 10_000; pk++) map.set(pk * 7, pk);
    const full = map.bytes;
    expect(full).toBeGreaterThan(100 * empty);
    for (let pk = 11; pk <= 10_000; pk++) expect(map.delete(pk * 7)).toBe(true);
    expect(map.size).toBe(10);
    expect(map.bytes).toBeLessThanOrEqual(8 * empty);
    for (let pk = 1; pk <= 10_000; pk++) expect(map.get(pk * 7)).toBe(pk <= 10 ? pk : undefined);
  });

  it('clears, and rejects keys that are not safe integers and values out of range', () => {
    const map = new PkMap();
    map.set(1, 0);
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get(1)).toBeUndefined();
    expect(() => map.set(1.5, 1)).toThrow(RangeError);
    expect(() => map.set(Number.NaN, 1)).toThrow(RangeError);
    expect(() => map.set(2 ** 53, 1)).toThrow(RangeError);
    expect(() => map.set(1, -1)).toThrow(RangeError);
    expect(() => map.set(1, 2 ** 31)).toThrow(RangeError);
    expect(map.size).toBe(0);
  });
});
