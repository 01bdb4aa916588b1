import { describe, expect, it } from 'vitest';
import { dotAt, dotsAt } from '../../src/vector/strided-dots.js';
import { seededRandom } from '../store/fixtures/records.js';

describe('dotsAt', () => {
  it('gives dotAt of each slot bit for bit, for odd counts, repeats, odd dimensions, clamping and non-finite rows', () => {
    const random = seededRandom(21);
    for (const dim of [1, 3, 8, 13, 64]) {
      const rows = 9;
      const data = Float32Array.from({ length: rows * dim }, () => random() * 2 - 1);
      // One row far beyond unit length (clamped) and one with a NaN (0).
      for (let i = 0; i < dim; i++) data[2 * dim + i] = 40;
      data[5 * dim] = Number.NaN;
      const query = Float32Array.from({ length: dim }, () => random() * 2 - 1);
      for (let i = 0; i < dim; i++) if (i % 2 === 0) query[i] = Math.abs(query[i] as number);
      for (const slots of [[0], [3, 1], [8, 2, 5, 5, 0, 7, 6], [...Array(rows).keys()]]) {
        const fast = dotsAt(data, dim, slots, query);
        slots.forEach((slot, j) =>
          expect(Object.is(fast[j], dotAt(data, dim, slot, query)), `${dim}/${slot}`).toBe(true),
        );
      }
    }
  });
});
