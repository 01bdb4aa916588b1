import { describe, expect, it } from 'vitest';
import { mergeCandidates } from '../../src/search/paths/merge-candidates.js';
import type { SearchCandidate } from '../../src/search/paths/search-candidate.js';
import { memory } from '../support/memory-fixture.js';

function candidate(id: string, path: string, score: number, channels: Record<string, number>): SearchCandidate {
  return {
    memory: memory(id, `text ${id}`),
    collection: null,
    paths: new Set([path]),
    channels,
    cosine: score,
    bm25: 0,
    lexicalWeight: 0,
    fused: score,
    score,
  };
}

describe('mergeCandidates', () => {
  it('unites the paths and channels of a memory found twice, keeps its best score, and changes no input', () => {
    const a1 = candidate('a', 'long-term', 0.4, { dense: 0.4 });
    const a2 = candidate('a', 'user', 0.7, { bm25: 0.9, dense: 0.2 });
    const b = candidate('b', 'user', 0.5, { dense: 0.5 });
    const before = structuredClone([a1, a2, b]);
    const merged = mergeCandidates([[a1], [a2, b]]);
    expect(merged.map((c) => c.memory.id)).toEqual(['a', 'b']);
    const [a] = merged as [SearchCandidate, SearchCandidate];
    expect([...a.paths].sort()).toEqual(['long-term', 'user']);
    expect(a.channels).toEqual({ dense: 0.4, bm25: 0.9 });
    expect(a.score).toBe(0.7);
    expect(a).not.toBe(a1);
    expect(a).not.toBe(a2);
    // A memory found once is the candidate as it came.
    expect(merged[1]).toBe(b);
    expect(structuredClone([a1, a2, b])).toEqual(before);
    // Merging again (a later stage) changes neither the earlier merge nor its inputs.
    const again = mergeCandidates([merged, [candidate('a', 'skill', 0.9, { dense: 0.9 })]]);
    expect([...(again[0] as SearchCandidate).paths].sort()).toEqual(['long-term', 'skill', 'user']);
    expect([...a.paths].sort()).toEqual(['long-term', 'user']);
    expect(a.score).toBe(0.7);
  });

  it('keeps a memory found in two collections apart', () => {
    const one = { ...candidate('a', 'long-term', 0.4, {}), collection: 'x' };
    const two = { ...candidate('a', 'long-term', 0.6, {}), collection: 'y' };
    expect(mergeCandidates([[one], [two]])).toEqual([one, two]);
  });
});
