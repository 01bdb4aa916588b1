import { describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import { isEngramError } from '../../src/model/errors.js';
import { createCosineLocalReranker } from '../../src/search/rank/cosine-local-reranker.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createHashEmbedder } from '../support/hash-embedder.js';

describe('Engram.search', () => {
  it('searches through the facade, records usage in the background and validates options', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    const levels = createCosineLocalReranker({ levelWeights: { fact: 0.5 } });
    const engram = await Engram.open({ store, embedder: createHashEmbedder(), search: { rerankers: [levels] } });
    const scope = { tenant: 't', user: 'u' };
    await engram.addMany(
      [
        { id: 'a', text: 'The garage code is 4512', type: 'LongTermMemory' },
        { id: 'b', text: 'Likes green tea', type: 'PreferenceMemory' },
        { id: 'c', text: 'Booked dentist for Tuesday', type: 'WorkingMemory' },
      ],
      { scope },
    );
    const result = await engram.search('garage code', { scope, types: ['LongTermMemory', 'PreferenceMemory'] });
    expect(result.hits[0]?.memory.id).toBe('a');
    expect(result.hits.map((h) => h.memory.id)).not.toContain('c');
    expect(engram.rerankerNames()).toEqual(['cosine-local', 'noop']);
    const reranked = await engram.search('garage code', { scope, reranker: 'cosine-local', types: ['LongTermMemory'] });
    expect(reranked.hits[0]?.relevance).toBeCloseTo(0.5 * (reranked.hits[0]?.explanation.cosine ?? NaN)); // no level counts as fact

    const bad = await engram.search('x', { scope, topK: 0 }).catch((e: unknown) => e);
    expect(isEngramError(bad, 'INVALID_LIMIT')).toBe(true);
    const badType = await engram.search('x', { scope, types: ['Nope' as 'SkillMemory'] }).catch((e: unknown) => e);
    expect(isEngramError(badType, 'INVALID_INPUT')).toBe(true);
    const badCollection = await engram.search('x', { scope, collections: [''] }).catch((e: unknown) => e);
    expect(isEngramError(badCollection, 'INVALID_SCOPE')).toBe(true);
    await engram.close();
  });

  it('writes use count and last use for returned memories', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    const engram = await Engram.open({ store, embedder: createHashEmbedder(), ownResources: false, clock: () => new Date('2026-02-03T04:05:06Z') });
    const scope = { tenant: 't' };
    await engram.add({ id: 'a', text: 'The garage code is 4512' }, { scope });
    await engram.search('garage code', { scope, topK: 1 });
    await engram.close();
    const [memory] = await store.get('t', ['a']);
    expect(memory?.usage).toEqual({ count: 1, lastUsedAt: '2026-02-03T04:05:06.000Z' });
    await store.close();
  });
});
