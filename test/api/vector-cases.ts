/**
 * Precomputed vectors in the MemoryApi conformance suite: memories added and updated with the
 * caller's vectors, and recalls and searches by a query vector, give what the reference (an
 * in-process Engram that embeds the same texts itself) gives — the same hits, order and scores —
 * and bad vectors get the codes of every entry point, storing nothing.
 */
import { expect, it } from 'vitest';
import type { Engram } from '../../src/engram.js';
import type { MemoryApi, RecallResult } from '../../src/model/api.js';
import type { MemoryInput } from '../../src/model/memory.js';
import type { SearchResult } from '../../src/model/search-result.js';
import { expectCode } from '../support/expect-code.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

export interface VectorCaseContext {
  open(): Promise<{ api: MemoryApi; a: string; b: string }>;
  openReference(): Promise<Engram>;
}

const TEXTS: MemoryInput[] = [
  { id: 'tea', text: 'Alice drinks green tea every morning', type: 'UserMemory' },
  { id: 'coffee', text: 'Bob prefers strong black coffee', type: 'PreferenceMemory' },
  { id: 'paris', text: 'Alice moved to Paris in 2021' },
  { id: 'cat', text: 'The cat is named Whiskers and likes tuna' },
];

/** The embedder both sides are opened with: the vectors a caller would compute on its side. */
const embedder = new HashedEmbedder();
const vectorOf = async (text: string): Promise<Float32Array> => (await embedder.embed([text]))[0] as Float32Array;

const recalled = (r: RecallResult) =>
  r.hits.map((h) => ({ id: h.memory.id, score: h.score, explanation: h.explanation }));
const searched = (r: SearchResult) => r.hits.map((h) => ({ id: h.memory.id, relevance: h.relevance }));

export function vectorCases({ open, openReference }: VectorCaseContext): void {
  it('memories added with precomputed vectors recall and search as the reference that embedded them', async () => {
    const { api, a } = await open();
    const ref = await openReference();
    const scope = { tenant: a, user: 'alice' };
    // Half as Float32Array (in-process shape), half as plain numbers (JSON shape).
    const given = await Promise.all(
      TEXTS.map(async (t, i) => {
        const v = await vectorOf(t.text);
        return { ...t, vector: i % 2 === 0 ? v : Array.from(v) };
      }),
    );
    const stored = await api.addMany(given.slice(0, 3), { scope });
    stored.push(await api.add(given[3] as MemoryInput, { scope }));
    expect(stored.map((m) => m.embedding)).toEqual(TEXTS.map(() => ({ model: embedder.model, dim: embedder.dim })));
    await ref.addMany(TEXTS, { scope });

    const query = 'what does Alice drink in the morning';
    const qv = await vectorOf(query);
    const want = await ref.recall(query, { scope, threshold: -1 });
    expect(want.hits[0]?.memory.id).toBe('tea');
    expect(recalled(await api.recall(query, { scope, threshold: -1, vector: qv }))).toEqual(recalled(want));
    expect(recalled(await api.recall(query, { scope, threshold: -1, vector: Array.from(qv) }))).toEqual(recalled(want));
    // A vector alone (no query text): the dense ranking of the reference's vector, no lexical part.
    const dense = await api.recall('', { scope, threshold: -1, vector: qv });
    expect(dense.hits[0]?.memory.id).toBe('tea');
    expect(dense.hits.every((h) => h.explanation.bm25 === 0)).toBe(true);

    const got = await api.search(query, { scope, vector: qv });
    expect(searched(got)).toEqual(searched(await ref.search(query, { scope })));
    expect(got.hits.length).toBeGreaterThan(0);
  });

  it('update takes a precomputed vector, alone (a re-embedding) or with a new text', async () => {
    const { api, a } = await open();
    const scope = { tenant: a };
    const memory = await api.add({ text: 'Alice drinks green tea every morning' }, { scope });
    const tuna = await vectorOf('the cat likes tuna');
    const moved = await api.update(memory.id, { vector: tuna }, { scope });
    expect(moved.text).toBe(memory.text);
    expect(moved.version).toBe(memory.version);
    await api.add({ text: 'Bob prefers strong black coffee' }, { scope });
    const byTuna = await api.recall('', { scope, vector: tuna, threshold: -1 });
    expect(byTuna.hits[0]?.memory.id).toBe(memory.id);
    expect(byTuna.hits[0]?.explanation.cosine).toBeCloseTo(1, 5);
    const both = await api.update(
      memory.id,
      { text: 'Alice moved to Paris', vector: Array.from(await vectorOf('Paris')) },
      { scope },
    );
    expect(both.text).toBe('Alice moved to Paris');
    const byParis = await api.recall('', { scope, vector: await vectorOf('Paris'), threshold: -1 });
    expect(byParis.hits[0]?.explanation.cosine).toBeCloseTo(1, 5);
  });

  it('bad vectors get the codes of every entry point and store nothing', async () => {
    const { api, a } = await open();
    const scope = { tenant: a };
    const good = await vectorOf('green tea');
    const nan = Float32Array.from(good);
    nan[3] = Number.NaN;
    await expectCode(api.add({ text: 'x', vector: good.subarray(1) }, { scope }), 'DIMENSION_MISMATCH');
    await expectCode(api.add({ text: 'x', vector: [...good, 0.5] }, { scope }), 'DIMENSION_MISMATCH');
    await expectCode(api.add({ text: 'x', vector: nan }, { scope }), 'INVALID_VECTOR');
    await expectCode(api.add({ text: 'x', vector: new Float32Array(good.length) }, { scope }), 'INVALID_VECTOR');
    await expectCode(api.add({ text: 'x', vector: [] }, { scope }), 'INVALID_VECTOR');
    await expectCode(
      api.addMany(
        [
          { text: 'fine', vector: good },
          { text: 'short', vector: good.subarray(2) },
        ],
        { scope },
      ),
      'DIMENSION_MISMATCH',
    );
    expect((await api.stats({ scope })).total).toBe(0);
    const kept = await api.add({ text: 'green tea', vector: good }, { scope });
    await expectCode(api.update(kept.id, { vector: nan }, { scope }), 'INVALID_VECTOR');
    await expectCode(api.recall('q', { scope, vector: good.subarray(1) }), 'DIMENSION_MISMATCH');
    await expectCode(api.recall('q', { scope, vector: new Float32Array(good.length) }), 'INVALID_VECTOR');
    await expectCode(api.search('q', { scope, vector: nan }), 'INVALID_VECTOR');
    await expectCode(api.search('q', { scope, vector: [...good, 1] }), 'DIMENSION_MISMATCH');
    await expectCode(api.search('', { scope, vector: good }), 'INVALID_TEXT');
    expect((await api.recall('', { scope, vector: good, threshold: -1 })).hits.map((h) => h.memory.id)).toEqual([
      kept.id,
    ]);
  });
}
