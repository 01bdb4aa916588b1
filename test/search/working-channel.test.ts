import { describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import { workingChannel } from '../../src/search/channels/working-channel.js';
import { planFast } from '../../src/search/plan/fast-plan.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { unicodeTokenize } from '../../src/text/tokenizer.js';
import { unitVector } from '../../src/vector/unit-cosine.js';
import { createHashEmbedder } from '../support/hash-embedder.js';

describe('working channel', () => {
  it('returns the newest activated working memories, up to the limit', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    let tick = Date.parse('2026-01-01T00:00:00Z');
    const engram = await Engram.open({ store, embedder: createHashEmbedder(), clock: () => new Date((tick += 1000)), ownResources: false });
    const scope = { tenant: 't' };
    for (let i = 0; i < 8; i++) await engram.add({ id: `w${i}`, text: `step ${i}`, type: 'WorkingMemory' }, { scope });
    await engram.add({ id: 'done', text: 'old step', type: 'WorkingMemory', status: 'archived' }, { scope });
    await engram.add({ id: 'lt', text: 'a fact', type: 'LongTermMemory' }, { scope });
    const hits = await workingChannel.run({
      store,
      model: engram.embedder.model,
      filter: { scope, types: ['WorkingMemory'] },
      goal: planFast('q'),
      queryTexts: ['q'],
      queryVectors: [],
      limit: 3,
      tokenize: unicodeTokenize,
      keywordTerms: [],
    });
    expect(hits.map((h) => h.id)).toEqual(['w7', 'w6', 'w5']);
    await engram.close();
    await store.close();
  });

  it('gives every hit its stored cosine with the query vectors, even when no dense search loaded the scope', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    // Unit vectors: the store's vector cache holds those bit for bit (others it keeps rescaled).
    const hashed = createHashEmbedder();
    const embedder = {
      model: hashed.model,
      dim: hashed.dim,
      embed: async (texts: string[]) => (await hashed.embed(texts)).map((v) => unitVector(v) as Float32Array),
    };
    const engram = await Engram.open({ store, embedder, ownResources: false });
    const scope = { tenant: 't' };
    for (let i = 0; i < 6; i++)
      await engram.add({ id: `w${i}`, text: `working step ${i}`, type: 'WorkingMemory' }, { scope });
    const queryVectors = await embedder.embed(['which step']);
    const hits = await workingChannel.run({
      store,
      model: embedder.model,
      filter: { scope, types: ['WorkingMemory'] },
      goal: planFast('which step'),
      queryTexts: ['which step'],
      queryVectors,
      limit: 10,
      tokenize: unicodeTokenize,
      keywordTerms: [],
    });
    expect(hits).toHaveLength(6);
    // The ranking then scores none of them a second time (a search of working memory alone).
    const exact = await store.storedCosines(
      't',
      hits.map((h) => h.id),
      queryVectors,
    );
    for (const h of hits) expect(h.storedCosine, h.id).toBe(exact.get(h.id));
    await engram.close();
    await store.close();
  });
});
