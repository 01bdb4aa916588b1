import { describe, expect, it } from 'vitest';

import { topK } from '../../src/vector/top-k.js';
import { topScored } from '../../src/vector/top-scored.js';
import { seededRandom } from '../store/fixtures/records.js';

/** What the lexical ranking asked of topK before: larger score first, larger item on ties. */
function reference(items: readonly number[], scores: ArrayLike<number>, k: number): number[] {
  return topK(items, k, (a, b) => (scores[b] as number) - (scores[a] as number) || b - a);
}

describe('topScored', () => {
  it('returns what the comparator selection returns, ties and all', () => {
    const random = seededRandom(5);
    for (let round = 0; round < 400; round++) {
      const universe = 1 + Math.floor(random() * 3000);
      const scores = new Float64Array(universe);
      // Few distinct values in some rounds, so that many items tie at the cut.
      const levels = round % 3 === 0 ? 4 : 1_000_000;
      for (let i = 0; i < universe; i++) scores[i] = Math.floor(random() * levels) / 7 - (round % 5 === 0 ? 1 : 0);
      const items = [
        ...new Set(Array.from({ length: Math.floor(random() * universe) }, () => Math.floor(random() * universe))),
      ];
      const k = Math.floor(random() * 150);
      expect(topScored(items, scores, k)).toEqual(reference(items, scores, k));
    }
  });

  it('keeps every item when k is larger, and none for k ≤ 0 or no items', () => {
    const scores = [3, 1, 2, 2];
    expect(topScored([0, 1, 2, 3], scores, 10)).toEqual([0, 3, 2, 1]);
    expect(topScored([0, 1, 2, 3], scores, 0)).toEqual([]);
    expect(topScored([0, 1, 2, 3], scores, -1)).toEqual([]);
    expect(topScored([], scores, 3)).toEqual([]);
  });
});
