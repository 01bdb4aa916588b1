import { describe, expect, it } from 'vitest';
import { DEFAULT_LEXICAL_WEIGHTS } from '../../src/recall/lexical-weights.js';
import { runRecall, type RecallRequest } from '../../src/recall/recall-pipeline.js';
import { ENGRAM_PROFILE, SEED_PROFILE } from '../../src/recall/recall-profile.js';
import { TokenCache } from '../../src/recall/token-cache.js';
import type { Memory } from '../../src/model/memory.js';
import type { MemoryStore, MemoryText, TextOptions } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { randomVector, seededRandom, withVector } from '../store/fixtures/records.js';

const WORDS = ['walrus', 'otter', 'heron', 'badger', 'lynx', 'marten', 'stoat', 'vole'];

/**
 * A real SQLite store whose reads are recorded (what the pipeline asked for): ids read through
 * getTexts (what both profiles rank by: texts, with their contexts for the spread fusion) and
 * through get (whole rows: the hits returned, and what ranks a candidate whose context the store
 * did not give). With `contextless`, getTexts answers as a store that knows no contexts. Unless
 * `documents`, it answers as a store that keeps no analyzer's documents: its channels bring none
 * and its texts come without them. Every call reaches the SQLite store itself, so all of them see
 * its one vector cache.
 */
async function storeWithTexts(
  contextless = false,
  documents = false,
): Promise<{ store: MemoryStore; asked: string[][]; rows: string[][] }> {
  const sqlite = createSqliteStore({ path: ':memory:' });
  const random = seededRandom(11);
  await sqlite.insert(
    Array.from({ length: 80 }, (_, i) =>
      withVector(randomVector(random, 8), 'test-model', {
        id: `m${i}`,
        scope: { tenant: 't' },
        text: `${WORDS[i % WORDS.length]} and ${WORDS[(i * 3) % WORDS.length]} seen on day ${i}`,
        // Context on some rows: what it answers, the day it was said and who said it.
        ...(i % 3 === 0 ? { background: `asked about the ${WORDS[(i + 1) % WORDS.length]}` } : {}),
        ...(i % 4 === 0 ? { statedAt: `2023-05-0${1 + (i % 9)}T10:00:00.000Z` } : {}),
        ...(i % 5 === 0 ? { sources: [{ type: 'chat' as const, role: i % 2 === 0 ? 'Walrus' : 'Ana' }] } : {}),
      }),
    ),
  );
  const asked: string[][] = [];
  const rows: string[][] = [];
  const store: MemoryStore = Object.create(sqlite) as MemoryStore;
  store.getTexts = async (tenant: string, ids: string[], options?: TextOptions): Promise<MemoryText[]> => {
    asked.push([...ids]);
    const texts = await sqlite.getTexts(tenant, ids, options);
    if (contextless) return texts.map(({ id, text, updatedAt }) => ({ id, text, updatedAt }));
    return documents ? texts : texts.map(({ document: _, ...text }) => text);
  };
  store.get = (tenant: string, ids: string[]): Promise<Memory[]> => {
    rows.push([...ids]);
    return sqlite.get(tenant, ids);
  };
  const analyzer = <Q extends { analyzer?: string | undefined }>(query: Q): Q =>
    documents ? query : { ...query, analyzer: undefined };
  store.denseSearch = (query) => sqlite.denseSearch(analyzer(query));
  store.lexicalSearch = (query) => sqlite.lexicalSearch(analyzer(query));
  return { store, asked, rows };
}

function request(profile = ENGRAM_PROFILE): RecallRequest {
  return {
    query: 'where was the walrus with an otter',
    queryVector: randomVector(seededRandom(99), 8),
    model: 'test-model',
    filter: { scope: { tenant: 't' } },
    limit: 5,
    threshold: 0,
    weights: DEFAULT_LEXICAL_WEIGHTS,
    profile,
  };
}

const summary = (r: Awaited<ReturnType<typeof runRecall>>): Array<[string, number]> =>
  r.hits.map((h) => [h.memory.id, h.score]);

describe('runRecall with a token cache', () => {
  it.each([
    ['engram', ENGRAM_PROFILE],
    ['seed', SEED_PROFILE],
  ])('reads candidates’ texts once, then ranks from cached tokens with the same result (%s)', async (name, profile) => {
    const { store, asked, rows } = await storeWithTexts();
    const tokenCache = new TokenCache();
    const uncached = await runRecall({ store }, request(profile));
    asked.length = 0;
    rows.length = 0;
    const first = await runRecall({ store, tokenCache }, request(profile));
    const hitIds = first.hits.map((h) => h.memory.id).sort();
    // Each candidate is read once, as its text (with its context for the spread fusion); whole
    // rows only for the hits.
    expect(asked.flat().length).toBe(first.poolSize);
    expect(new Set(asked.flat()).size).toBe(first.poolSize);
    expect(rows.flat().sort()).toEqual(hitIds);
    expect(name).toBe(profile.name);
    asked.length = 0;
    rows.length = 0;
    const second = await runRecall({ store, tokenCache }, request(profile));
    // Cached: nothing is read to rank; only the hits themselves are fetched.
    expect(asked.flat()).toEqual([]);
    expect(rows.flat().sort()).toEqual(hitIds);
    expect(summary(second)).toEqual(summary(first));
    expect(summary(first)).toEqual(summary(uncached));
    expect(first.hits.length).toBe(5);
  });

  it('ranks by whole rows where the store gives no context, with the same result', async () => {
    const { store, asked, rows } = await storeWithTexts(true);
    const first = await runRecall({ store }, request());
    // Texts came without contexts: every candidate is then read whole, once.
    expect(new Set(asked.flat()).size).toBe(first.poolSize);
    expect(new Set(rows.flat()).size).toBe(first.poolSize);
    const plain = await storeWithTexts();
    const withContext = await runRecall({ store: plain.store }, request());
    expect(summary(first)).toEqual(summary(withContext));
    expect(first.hits.some((h) => h.explanation.extra !== undefined)).toBe(true);
  });

  it('ranks from the documents the channels bring, reading no text, with the same hits and explanations', async () => {
    const { store, asked } = await storeWithTexts(false, true);
    // The first recall builds the lexical index after the dense search: its hits read their texts.
    await runRecall({ store }, request());
    asked.length = 0;
    const withDocuments = await runRecall({ store }, request());
    expect(asked).toEqual([]);
    const plain = await storeWithTexts();
    const withTexts = await runRecall({ store: plain.store }, request());
    expect(plain.asked.flat()).toHaveLength(withTexts.poolSize);
    const explained = (r: typeof withTexts) => r.hits.map((h) => [h.memory.id, h.score, h.explanation]);
    expect(explained(withDocuments)).toEqual(explained(withTexts));
    expect(withDocuments.hits).toHaveLength(5);
  });

  it('re-reads a candidate whose text changed, and ranks by the new text', async () => {
    const { store, asked } = await storeWithTexts();
    const tokenCache = new TokenCache();
    const before = await runRecall({ store, tokenCache }, request());
    const target = before.hits[before.hits.length - 1]!.memory.id;
    await store.update('t', target, { text: 'walrus otter walrus otter', updatedAt: '2027-01-01T00:00:00.000Z' });
    asked.length = 0;
    const after = await runRecall({ store, tokenCache }, request());
    // Only the changed row is read (once) to rank.
    expect(asked).toEqual([[target]]);
    const bm25Of = (r: typeof before): number | undefined =>
      r.hits.find((h) => h.memory.id === target)?.explanation.bm25Raw;
    expect(bm25Of(after)).toBeGreaterThan(bm25Of(before) as number);
    expect(after.hits.find((h) => h.memory.id === target)?.memory.text).toBe('walrus otter walrus otter');
    expect(summary(after)).toEqual(summary(await runRecall({ store }, request())));
  });
});
