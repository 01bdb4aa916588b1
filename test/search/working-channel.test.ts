import { describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import { workingChannel } from '../../src/search/channels/working-channel.js';
import { planFast } from '../../src/search/plan/fast-plan.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { unicodeTokenize } from '../../src/text/tokenizer.js';
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
});
