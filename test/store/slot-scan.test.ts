import { describe, expect, it } from 'vitest';
import { topSlots } from '../../src/store/sqlite/slot-scan.js';

describe('topSlots', () => {
  it('returns the slots of the best inner products, best first, as plain numbers', () => {
    const dim = 4;
    const data = Float32Array.of(0, 0, 0, 1, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 1, 0, 0, 0.9, 0.1, 0, 0);
    const query = Float32Array.of(1, 0, 0, 0);
    expect(topSlots(data, query, dim, 3, 1)).toEqual([1, 4, 2]);
    expect(topSlots(data, query, dim, 0, 1)).toEqual([]);
  });
});
