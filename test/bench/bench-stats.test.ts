import { describe, expect, it } from 'vitest';

import { exactTopK } from '../../bench/lib/exact-scan.js';
import { referenceRank } from '../../bench/lib/reference-recall.js';
import { fmtMs, percentile } from '../../bench/lib/stats.js';
import { fuseLinear } from '../../src/recall/linear-fusion.js';
import { DEFAULT_LEXICAL_WEIGHTS } from '../../src/recall/lexical-weights.js';
import { DEFAULT_BM25 } from '../../src/text/bm25.js';
import { referenceTokenize } from '../../src/text/tokenizer.js';

describe('percentile (nearest rank)', () => {
  it('takes the value at rank ⌈p/100 · n⌉ of the sorted list', () => {
    const values = [5, 1, 4, 2, 3, 6];
    expect(percentile(values, 50)).toBe(3);
    expect(percentile(values, 95)).toBe(6);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 100)).toBe(6);
    expect(percentile([7, 8, 9], 50)).toBe(8);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        99,
      ),
    ).toBe(99);
    expect(percentile([], 50)).toBeNaN();
  });
  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
  it('formats milliseconds by size', () => {
    expect([fmtMs(1.234), fmtMs(12.34), fmtMs(123.4), fmtMs(Number.NaN)]).toEqual(['1.23', '12.3', '123', '–']);
  });
});

describe('exactTopK with a row filter', () => {
  it('equals a full sort of the listed rows, ties keeping the lower row', () => {
    const dim = 2;
    const matrix = new Float32Array([1, 0, 0, 1, 0.6, 0.8, 0, 1, 0.8, 0.6]);
    const q = new Float32Array([0, 1]);
    expect(exactTopK(matrix, dim, q, 3).map((t) => t.index)).toEqual([1, 3, 2]);
    expect(exactTopK(matrix, dim, q, 2, [0, 2, 3, 4]).map((t) => t.index)).toEqual([3, 2]);
    expect(exactTopK(matrix, dim, q, 5, [4, 0])).toHaveLength(2);
  });
});

describe('referenceRank', () => {
  it('orders a pool by the reference fusion, ties by cosine', () => {
    const pool = [
      { id: 'a', text: 'the walrus swims', cosine: 0.5 },
      { id: 'b', text: 'an otter naps', cosine: 0.6 },
      { id: 'c', text: 'walrus and otter', cosine: 0.4 },
    ];
    const query = 'walrus otter';
    const fused = fuseLinear(referenceTokenize(query), pool, {
      weights: DEFAULT_LEXICAL_WEIGHTS,
      tokenize: referenceTokenize,
      bm25: DEFAULT_BM25,
    }).fused;
    const expected = pool
      .map((p, i) => ({ id: p.id, score: fused[i] as number, cosine: p.cosine }))
      .sort((x, y) => y.score - x.score || y.cosine - x.cosine)
      .map(({ id, score }) => ({ id, score }));
    expect(referenceRank(query, pool, 3)).toEqual(expected);
    expect(referenceRank(query, pool, 1)).toEqual(expected.slice(0, 1));
    expect(expected[0]?.id).toBe('c');
  });
});
