/**
 * A custom embedder that answers with something other than one finite Float32Array of its
 * dimension per text: every entry point fails with EMBEDDER_ERROR (REST: 502), nothing is stored,
 * and the instance works again once the embedder does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/embed/embedder.js';
import { Engram } from '../../src/engram.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { expectCode } from '../support/expect-code.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startHarness, type Harness } from '../server/server-harness.js';
import { Searcher } from '../../src/search/searcher.js';

const healthy = new HashedEmbedder();
/** How the embedder answers now: its healthy vectors, or one of the broken answers below. */
let answer: (vectors: Float32Array[]) => unknown = (vectors) => vectors;
const embedder: Embedder = {
  model: healthy.model,
  dim: healthy.dim,
  async embed(texts) {
    return answer(await healthy.embed(texts)) as Float32Array[];
  },
};

const BROKEN: Array<[string, (vectors: Float32Array[]) => unknown]> = [
  ['no array', () => null],
  ['an undefined vector', (v) => v.map(() => undefined)],
  ['plain number arrays', (v) => v.map((x) => [...x])],
  ['one vector too few', (v) => v.slice(1)],
  ['one vector too many', (v) => [...v, v[0]]],
  ['a vector of another dimension', (v) => v.map((x) => x.subarray(1))],
  ['a NaN', (v) => v.map((x) => Float32Array.from(x, (n, i) => (i === 3 ? Number.NaN : n)))],
  ['an empty vector', (v) => v.map(() => new Float32Array(0))],
];

const scope = { tenant: 't', user: 'u' };
let engram: Engram;
let h: Harness;
let key: string;

beforeAll(async () => {
  engram = await Engram.open({ store: createSqliteStore({ path: ':memory:' }), embedder });
  await engram.add({ text: 'Alice drinks green tea' }, { scope });
  h = await startHarness({ engram, closeEngram: false });
  key = h.key({ tenant: 't' });
});

afterAll(async () => {
  await h.close();
  await h.engram.close();
  await engram.close();
});

describe('an embedder that answers wrongly', () => {
  it.each(BROKEN)('%s: EMBEDDER_ERROR from every entry point, nothing stored', async (_name, broken) => {
    answer = broken;
    try {
      const error = await expectCode(engram.add({ text: 'Bob likes coffee' }, { scope }), 'EMBEDDER_ERROR');
      // The message names the embedder and what it did wrong.
      expect(error.message).toMatch(new RegExp(`^Embedder ${healthy.model} returned .+`));
      await expectCode(engram.addMany([{ text: 'one' }, { text: 'two' }], { scope }), 'EMBEDDER_ERROR');
      await expectCode(engram.recall('tea', { scope }), 'EMBEDDER_ERROR');
      await expectCode(engram.search('tea', { scope }), 'EMBEDDER_ERROR');
      for (const [path, body] of [
        ['/v1/recall', { query: 'tea', scope: { user: 'u' } }],
        ['/v1/search', { query: 'tea', scope: { user: 'u' } }],
        ['/v1/memories', { memory: { text: 'Bob likes coffee' }, scope: { user: 'u' } }],
      ] as const) {
        const response = await h.request('POST', path, { key, body });
        expect([path, response.status, response.json.error?.code]).toEqual([path, 502, 'EMBEDDER_ERROR']);
      }
    } finally {
      answer = (vectors) => vectors;
    }
    expect(await engram.store.count({ scope, statuses: ['activated'] })).toBe(1);
    const recalled = await engram.recall('green tea', { scope });
    expect(recalled.hits.map((hit) => hit.memory.text)).toEqual(['Alice drinks green tea']);
  });

  it.each(BROKEN)('%s, when re-embedding: EMBEDDER_ERROR, the stored vectors untouched', async (_name, broken) => {
    const before = await engram.recall('green tea', { scope });
    const other: Embedder = {
      model: 'other-model',
      dim: healthy.dim,
      embed: async (texts) => broken(await healthy.embed(texts)) as Float32Array[],
    };
    await expectCode(engram.reembed({ scope, embedder: other }), 'EMBEDDER_ERROR');
    const after = await engram.recall('green tea', { scope });
    expect(after.hits.map((hit) => [hit.memory.id, hit.score])).toEqual(
      before.hits.map((hit) => [hit.memory.id, hit.score]),
    );
  });

  it.each(BROKEN)('%s, to a Searcher built without the facade: EMBEDDER_ERROR', async (_name, broken) => {
    // `engram-memory/search` exports the Searcher: its own query embedding is checked too.
    const raw: Embedder = {
      model: healthy.model,
      dim: healthy.dim,
      embed: async (texts) => broken(await healthy.embed(texts)) as Float32Array[],
    };
    const searcher = new Searcher({ store: engram.store, embedder: raw });
    await expectCode(searcher.search('tea', { scope }), 'EMBEDDER_ERROR');
  });
});
