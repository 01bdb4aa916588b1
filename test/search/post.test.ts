import { describe, expect, it } from 'vitest';
import { dedupeByText } from '../../src/search/post/dedupe-by-text.js';
import { mmrSelect } from '../../src/search/post/mmr.js';
import { removeNearDuplicates } from '../../src/search/post/near-duplicates.js';
import { trimByType } from '../../src/search/post/type-buckets.js';
import { memory } from '../support/memory-fixture.js';

describe('post-processing', () => {
  it('dedupes by text keeping the highest score', () => {
    const hits = [
      { memory: memory('1', 'same'), score: 0.2 },
      { memory: memory('2', 'other'), score: 0.5 },
      { memory: memory('3', ' same '), score: 0.9 },
    ];
    expect(dedupeByText(hits).map((h) => [h.memory.id, h.score])).toEqual([
      ['3', 0.9],
      ['2', 0.5],
    ]);
  });

  it('drops near-duplicates by cosine, keeping the better one', () => {
    const vectors = new Map([
      ['a', Float32Array.from([1, 0])],
      ['b', Float32Array.from([0.99, 0.05])],
      ['c', Float32Array.from([0, 1])],
    ]);
    const hits = [
      { memory: memory('b', 'B'), score: 0.8 },
      { memory: memory('a', 'A'), score: 0.9 },
      { memory: memory('c', 'C'), score: 0.1 },
    ];
    expect(removeNearDuplicates(hits, vectors, 0.95).map((h) => h.memory.id)).toEqual(['a', 'c']);
    expect(removeNearDuplicates(hits, vectors, 0.9999).map((h) => h.memory.id)).toEqual(['a', 'b', 'c']);
  });

  it('MMR prefers a diverse second hit; λ = 1 is score order', () => {
    const vectors = new Map([
      ['a', Float32Array.from([1, 0])],
      ['b', Float32Array.from([1, 0.01])],
      ['c', Float32Array.from([0, 1])],
    ]);
    const hits = [
      { memory: memory('a', 'A'), score: 0.9 },
      { memory: memory('b', 'B'), score: 0.85 },
      { memory: memory('c', 'C'), score: 0.6 },
    ];
    expect(mmrSelect(hits, vectors, 2, 0.5).map((h) => h.memory.id)).toEqual(['a', 'c']);
    expect(mmrSelect(hits, vectors, 2, 1).map((h) => h.memory.id)).toEqual(['a', 'b']);
  });

  it('trims per type bucket with each bucket its own top-k', () => {
    const hits = [
      ...[0.9, 0.8, 0.7].map((s, i) => ({ memory: memory(`f${i}`, `f${i}`), score: s })),
      ...[0.95, 0.5].map((s, i) => ({ memory: memory(`k${i}`, `k${i}`, { type: 'SkillMemory' }), score: s })),
      { memory: memory('w', 'w', { type: 'WorkingMemory' }), score: 0.85 },
      { memory: memory('p', 'p', { type: 'PreferenceMemory' }), score: 0.1 },
    ];
    const out = trimByType(hits, { topK: 2, skillTopK: 1, preferenceTopK: 1, toolSchemaTopK: 1, toolTrajectoryTopK: 1 });
    expect(out.map((h) => h.memory.id)).toEqual(['k0', 'f0', 'w', 'p']);
  });
});
