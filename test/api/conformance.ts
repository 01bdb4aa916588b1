/**
 * The shared MemoryApi conformance suite: the behaviours of the in-process facade that every
 * implementation (the `Engram` facade, `RemoteEngram` over HTTP) must show exactly.
 *
 *   runMemoryApiConformance('remote', async (tenants) => ({ api, cleanup }));
 *
 * The factory receives the tenants a test will use (unique per test), so an implementation that
 * needs credentials per tenant (the remote client) can mint them. Implementations embed with the
 * HashedEmbedder of test/support (deterministic bag of words): search results are compared hit
 * by hit, score by score, with the reference, an in-process `Engram` over SQLite with the same
 * embedder loaded with the same memories.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import type { MemoryApi } from '../../src/model/api.js';
import type { Memory, MemoryInput } from '../../src/model/memory.js';
import type { Scope } from '../../src/model/scope.js';
import type { SearchOptions } from '../../src/model/search-options.js';
import type { SearchResult } from '../../src/model/search-result.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { expectCode } from '../support/expect-code.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { vectorCases } from './vector-cases.js';

export interface ApiHandle {
  api: MemoryApi;
  cleanup(): Promise<void>;
}

export type ApiFactory = (tenants: string[]) => Promise<ApiHandle>;

let counter = 0;
function tenants(n: number): string[] {
  counter++;
  return Array.from({ length: n }, (_, i) => `t${i}-${process.pid}-${counter}`);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const FACTS = [
  { id: 'tea', text: 'Alice drinks green tea every morning', type: 'UserMemory' as const, tags: ['drink', 'morning'], key: 'beverage' },
  { id: 'coffee', text: 'Bob prefers strong black coffee', type: 'PreferenceMemory' as const, tags: ['drink'], key: 'beverage' },
  { id: 'paris', text: 'Alice moved to Paris in 2021', type: 'LongTermMemory' as const, tags: ['travel'] },
  { id: 'cat', text: 'The cat is named Whiskers and likes tuna', type: 'LongTermMemory' as const, tags: ['pet'] },
  { id: 'hike', text: 'Alice went hiking in the Alps last summer', type: 'LongTermMemory' as const, tags: ['travel', 'sport'] },
];

/** Memories in collections of Alice's scope, for the multi-collection search. */
const COLLECTED: Array<[string, MemoryInput]> = [
  ['health', { id: 'peanut', text: 'Alice is allergic to peanuts and drinks no milk', type: 'UserMemory' }],
  ['home', { id: 'garden', text: 'Alice waters the tomato garden with tea leaves on Sundays' }],
  ['work', { id: 'standup', text: 'The team standup is at nine every morning' }],
];

/** Searches that run offline (no LLM, no web): modes fall back to fast and say so in `degraded`. */
const SEARCHES: Array<[string, Omit<SearchOptions, 'scope'>]> = [
  ['what does Alice drink in the morning', {}],
  ['green tea coffee', { types: ['UserMemory', 'PreferenceMemory'], topK: 3, threshold: -1 }],
  ['Alice travel Paris Alps', { reranker: 'cosine-local' }],
  ['Whiskers likes tuna', { fastGraph: true, threshold: -1 }],
  ['drink morning', { paths: ['long-term', 'user', 'preference', 'keyword'], fulltext: true }],
  ['Alice', { mmrLambda: 0.5, nearDuplicateThreshold: 0.9, threshold: -1 }],
  ['morning tea', { mode: 'fine' }],
  ['Alice hiking summer', { mode: 'deep', decompose: true, reason: true }],
  ['drink', { boost: { tags: ['morning'], userId: 'alice' }, priority: { session: 's1' }, bucketLimits: { preferenceTopK: 1 } }],
  ['tea in the morning', { collections: ['health', 'home', 'work'], threshold: -1 }],
];

/** What must agree between implementations: everything but wall-clock times and row timestamps. */
function comparable(result: SearchResult): unknown {
  return {
    query: result.query,
    hits: result.hits.map((h) => ({ id: h.memory.id, text: h.memory.text, relevance: h.relevance, collection: h.collection, explanation: h.explanation })),
    plan: result.plan,
    collections: result.collections,
    degraded: result.degraded,
  };
}

async function load(api: MemoryApi, tenant: string): Promise<Scope> {
  const scope = { tenant, user: 'alice' };
  await api.addMany(FACTS, { scope: { ...scope, session: 's1' } });
  for (const [collection, memory] of COLLECTED) await api.add(memory, { scope: { ...scope, collection } });
  return scope;
}

/** Options of {@link runMemoryApiConformance}. */
export interface ApiConformanceOptions {
  /**
   * Opens the reference searches are compared with, hit by hit and score by score. A store
   * backend's own lexical relevance (bm25 in SQLite, ts_rank in PostgreSQL) is part of the
   * explanation, so an implementation over another backend compares with that backend on one
   * server. @default an in-process Engram over SQLite in memory with the HashedEmbedder
   */
  reference?: (() => Promise<Engram>) | undefined;
}

export function runMemoryApiConformance(name: string, factory: ApiFactory, options: ApiConformanceOptions = {}): void {
  describe(`MemoryApi conformance: ${name}`, () => {
    let handle: ApiHandle | undefined;
    const open = async (n = 2): Promise<{ api: MemoryApi; a: string; b: string }> => {
      const ts = tenants(n);
      handle = await factory(ts);
      return { api: handle.api, a: ts[0] as string, b: ts[1] as string };
    };
    let reference: Engram | undefined;
    const openReference = async (): Promise<Engram> => {
      reference = options.reference
        ? await options.reference()
        : await Engram.open({ store: createSqliteStore({ path: ':memory:' }), embedder: new HashedEmbedder() });
      return reference;
    };
    afterEach(async () => {
      await handle?.cleanup();
      handle = undefined;
      await reference?.close();
      reference = undefined;
    });

    it('add applies defaults and get returns the same memory', async () => {
      const { api, a } = await open();
      const memory = await api.add({ text: 'Remember the milk' }, { scope: { tenant: a, user: 'u1' } });
      expect(memory.text).toBe('Remember the milk');
      expect(memory.type).toBe('LongTermMemory');
      expect(memory.status).toBe('activated');
      expect(memory.tags).toEqual([]);
      expect(memory.metadata).toEqual({});
      expect(memory.scope).toEqual({ tenant: a, user: 'u1' });
      expect(memory.createdAt).toMatch(ISO);
      expect(memory.usage).toEqual({ count: 0, lastUsedAt: null });
      expect(memory.embedding?.dim).toBeGreaterThan(0);
      expect(await api.get(memory.id, { scope: { tenant: a } })).toEqual(memory);
    });

    it('add keeps every field (tags deduplicated, dates normalised to ISO UTC)', async () => {
      const { api, a } = await open();
      const memory = await api.add(
        {
          id: 'm:1@x',
          text: 'Carol is allergic to peanuts',
          type: 'UserMemory',
          key: 'allergy',
          tags: ['health', 'health', 'food'],
          level: 'fact',
          summary: 'peanut allergy',
          background: 'said at dinner',
          sources: [{ type: 'chat', id: 'D1:3', role: 'user', content: 'I am allergic to peanuts' }],
          metadata: { confidence: 0.9, nested: { list: [1, 'two', null, true] } },
          statedAt: '2023-05-08T13:56:00+02:00',
          status: 'archived',
        },
        { scope: { tenant: a, user: 'carol', agent: 'bot', session: 's1', collection: 'health' } },
      );
      expect(memory).toMatchObject({
        id: 'm:1@x',
        type: 'UserMemory',
        key: 'allergy',
        tags: ['health', 'food'],
        level: 'fact',
        summary: 'peanut allergy',
        background: 'said at dinner',
        sources: [{ type: 'chat', id: 'D1:3', role: 'user', content: 'I am allergic to peanuts' }],
        metadata: { confidence: 0.9, nested: { list: [1, 'two', null, true] } },
        statedAt: '2023-05-08T11:56:00.000Z',
        status: 'archived',
        scope: { tenant: a, user: 'carol', agent: 'bot', session: 's1', collection: 'health' },
      });
      expect(await api.get('m:1@x', { scope: { tenant: a } })).toEqual(memory);
    });

    it('get returns null for unknown ids and for ids of another tenant', async () => {
      const { api, a, b } = await open();
      const memory = await api.add({ text: 'secret of tenant a' }, { scope: { tenant: a } });
      expect(await api.get('does-not-exist', { scope: { tenant: a } })).toBeNull();
      expect(await api.get(memory.id, { scope: { tenant: b } })).toBeNull();
    });

    it('addMany stores all memories in order', async () => {
      const { api, a } = await open();
      const memories = await api.addMany(FACTS, { scope: { tenant: a } });
      expect(memories.map((m) => m.id)).toEqual(FACTS.map((f) => f.id));
      expect((await api.stats({ scope: { tenant: a } })).total).toBe(FACTS.length);
    });

    it('addMany is all or none: one bad item stores nothing', async () => {
      const { api, a } = await open();
      await expectCode(api.addMany([{ text: 'fine' }, { text: '' }, { text: 'also fine' }], { scope: { tenant: a } }), 'INVALID_TEXT');
      await expectCode(api.addMany([{ text: 'fine', id: 'x' }, { text: 'dup', id: 'x' }], { scope: { tenant: a } }), 'CONFLICT');
      await api.add({ id: 'taken', text: 'first' }, { scope: { tenant: a } });
      await expectCode(api.addMany([{ text: 'new one', id: 'fresh' }, { text: 'clash', id: 'taken' }], { scope: { tenant: a } }), 'CONFLICT');
      await expectCode(api.addMany([], { scope: { tenant: a } }), 'INVALID_INPUT');
      const page = await api.list({ scope: { tenant: a } });
      expect(page.items.map((m) => m.id)).toEqual(['taken']);
    });

    it('rejects bad input with stable codes', async () => {
      const { api, a } = await open();
      const scope = { tenant: a };
      await expectCode(api.add({ text: '   ' }, { scope }), 'INVALID_TEXT');
      await expectCode(api.add({ text: 42 as unknown as string }, { scope }), 'INVALID_TEXT');
      await expectCode(api.add({ text: 'x'.repeat(40_000) }, { scope }), 'TEXT_TOO_LONG');
      await expectCode(api.add({ text: 'ok', colour: 'red' } as unknown as { text: string }, { scope }), 'INVALID_INPUT');
      await expectCode(api.add({ text: 'ok', type: 'Nope' as 'UserMemory' }, { scope }), 'INVALID_INPUT');
      await expectCode(api.add({ text: 'ok', statedAt: 'yesterday-ish' }, { scope }), 'INVALID_INPUT');
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 40; i++) deep = { d: deep };
      await expectCode(api.add({ text: 'ok', metadata: deep as never }, { scope }), 'INVALID_INPUT');
      await expectCode(api.add({ text: 'ok' }, { scope: { user: 'u' } as never }), 'INVALID_SCOPE');
      await expectCode(api.add({ text: 'ok' }, { scope: { tenant: a, planet: 'mars' } as never }), 'INVALID_SCOPE');
      expect((await api.stats({ scope })).total).toBe(0);
    });

    it('update changes fields, re-embeds a new text, and is NOT_FOUND across tenants', async () => {
      const { api, a, b } = await open();
      await api.addMany(FACTS, { scope: { tenant: a } });
      const updated = await api.update('cat', { text: 'The dog is named Rex and loves bones', tags: ['pet', 'dog'] }, { scope: { tenant: a } });
      expect(updated.text).toBe('The dog is named Rex and loves bones');
      expect(updated.tags).toEqual(['pet', 'dog']);
      const recall = await api.recall('dog named Rex', { scope: { tenant: a }, limit: 1 });
      expect(recall.hits[0]?.memory.id).toBe('cat');
      await expectCode(api.update('cat', { text: 'hijacked' }, { scope: { tenant: b } }), 'NOT_FOUND');
      await expectCode(api.update('nope', { text: 'x' }, { scope: { tenant: a } }), 'NOT_FOUND');
      await expectCode(api.update('cat', {}, { scope: { tenant: a } }), 'INVALID_INPUT');
      await expectCode(api.update('cat', { id: 'other' } as never, { scope: { tenant: a } }), 'INVALID_INPUT');
      expect((await api.get('cat', { scope: { tenant: a } }))?.text).toBe('The dog is named Rex and loves bones');
    });

    it('delete removes once, and never across tenants', async () => {
      const { api, a, b } = await open();
      await api.addMany(FACTS, { scope: { tenant: a } });
      expect(await api.delete('tea', { scope: { tenant: b } })).toBe(false);
      expect(await api.get('tea', { scope: { tenant: a } })).not.toBeNull();
      expect(await api.delete('tea', { scope: { tenant: a } })).toBe(true);
      expect(await api.delete('tea', { scope: { tenant: a } })).toBe(false);
      expect(await api.get('tea', { scope: { tenant: a } })).toBeNull();
    });

    it('list filters by type, tags, key, status and scope, and pages with a cursor', async () => {
      const { api, a, b } = await open();
      await api.addMany(FACTS, { scope: { tenant: a, user: 'alice' } });
      await api.add({ text: 'Dave likes jazz', id: 'jazz' }, { scope: { tenant: a, user: 'dave' } });
      await api.add({ text: 'archived thing', id: 'old', status: 'archived' }, { scope: { tenant: a, user: 'alice' } });
      await api.add({ text: 'tenant b only', id: 'bee' }, { scope: { tenant: b } });
      const idsOf = async (request: Parameters<MemoryApi['list']>[0]) => (await api.list(request)).items.map((m) => m.id).sort();
      expect(await idsOf({ scope: { tenant: a } })).toEqual(['cat', 'coffee', 'hike', 'jazz', 'paris', 'tea']);
      expect(await idsOf({ scope: { tenant: a, user: 'dave' } })).toEqual(['jazz']);
      expect(await idsOf({ scope: { tenant: a }, types: ['UserMemory', 'PreferenceMemory'] })).toEqual(['coffee', 'tea']);
      expect(await idsOf({ scope: { tenant: a }, tags: ['travel', 'sport'] })).toEqual(['hike']);
      expect(await idsOf({ scope: { tenant: a }, key: 'beverage' })).toEqual(['coffee', 'tea']);
      expect(await idsOf({ scope: { tenant: a }, statuses: ['archived'] })).toEqual(['old']);
      expect(await idsOf({ scope: { tenant: a }, ids: ['tea', 'bee'] })).toEqual(['tea']);
      expect(await idsOf({ scope: { tenant: b } })).toEqual(['bee']);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await api.list({ scope: { tenant: a }, limit: 2, cursor });
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((m) => m.id));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen.sort()).toEqual(['cat', 'coffee', 'hike', 'jazz', 'paris', 'tea']);
      await expectCode(api.list({ scope: { tenant: a }, limit: 0 }), 'INVALID_LIMIT');
      await expectCode(api.list({ scope: { tenant: a }, limit: 1_000_001 }), 'INVALID_LIMIT');
      await expectCode(api.list({ scope: { tenant: a }, types: ['Bogus' as 'UserMemory'] }), 'INVALID_INPUT');
    });

    it('stats counts by type and status within the tenant only', async () => {
      const { api, a, b } = await open();
      await api.addMany(FACTS, { scope: { tenant: a } });
      await api.add({ text: 'other tenant' }, { scope: { tenant: b } });
      const stats = await api.stats({ scope: { tenant: a } });
      expect(stats.total).toBe(5);
      expect(stats.byType).toMatchObject({ UserMemory: 1, PreferenceMemory: 1, LongTermMemory: 3 });
      expect(stats.byStatus).toMatchObject({ activated: 5 });
      expect(stats.models).toHaveLength(1);
      expect(stats.models[0]?.count).toBe(5);
      expect((await api.stats({ scope: { tenant: a }, types: ['UserMemory'] })).total).toBe(1);
      expect((await api.stats({ scope: { tenant: b } })).total).toBe(1);
    });

    it('recall ranks the best memory first with an explanation, and respects limit, threshold, types and scope', async () => {
      const { api, a, b } = await open();
      await api.addMany(FACTS, { scope: { tenant: a, user: 'alice' } });
      await api.add({ text: 'green tea is also liked by Dave', id: 'dave-tea' }, { scope: { tenant: a, user: 'dave' } });
      await api.add({ text: 'Alice drinks green tea every morning', id: 'b-tea' }, { scope: { tenant: b, user: 'alice' } });
      const result = await api.recall('what does Alice drink in the morning? green tea', { scope: { tenant: a, user: 'alice' }, limit: 3, threshold: -1 });
      expect(result.hits[0]?.memory.id).toBe('tea');
      expect(result.hits.length).toBe(3);
      expect(result.hits.every((h) => h.memory.scope.tenant === a && h.memory.scope.user === 'alice')).toBe(true);
      const scores = result.hits.map((h) => h.score);
      expect([...scores].sort((x, y) => y - x)).toEqual(scores);
      const top = result.hits[0];
      expect(top?.explanation.fused).toBe(top?.score);
      expect(top?.explanation.channels.length).toBeGreaterThan(0);
      expect(result.timings.totalMs).toBeGreaterThanOrEqual(0);
      expect(result.poolSize).toBeGreaterThan(0);
      const strict = await api.recall('green tea', { scope: { tenant: a, user: 'alice' }, threshold: 0.99 });
      expect(strict.hits).toEqual([]);
      expect(strict.cut.length).toBeGreaterThan(0);
      const typed = await api.recall('green tea coffee', { scope: { tenant: a }, types: ['PreferenceMemory'], threshold: -1 });
      expect(typed.hits.map((h) => h.memory.id)).toEqual(['coffee']);
      const other = await api.recall('green tea', { scope: { tenant: b }, threshold: -1, limit: 10 });
      expect(other.hits.map((h) => h.memory.id)).toEqual(['b-tea']);
      const seed = await api.recall('green tea', { scope: { tenant: a }, profile: 'seed', limit: 2 });
      expect(seed.hits.length).toBeGreaterThan(0);
    });

    it('recall rejects bad options with stable codes', async () => {
      const { api, a } = await open();
      await api.add({ text: 'something' }, { scope: { tenant: a } });
      await expectCode(api.recall('', { scope: { tenant: a } }), 'INVALID_TEXT');
      await expectCode(api.recall('x'.repeat(10_000), { scope: { tenant: a } }), 'TEXT_TOO_LONG');
      await expectCode(api.recall('q', { scope: { tenant: a }, limit: 0 }), 'INVALID_LIMIT');
      await expectCode(api.recall('q', { scope: { tenant: a }, limit: 2.5 }), 'INVALID_LIMIT');
      await expectCode(api.recall('q', { scope: { tenant: a }, limit: 1e9 }), 'INVALID_LIMIT');
      await expectCode(api.recall('q', { scope: { tenant: a }, threshold: 5 }), 'INVALID_INPUT');
      await expectCode(api.recall('q', { scope: { tenant: a }, profile: 'best' as 'seed' }), 'INVALID_INPUT');
      await expectCode(api.recall('q', { scope: { tenant: a }, types: ['Nope' as 'UserMemory'] }), 'INVALID_INPUT');
      await expectCode(api.recall('q', { scope: {} as never }), 'INVALID_SCOPE');
    });

    it.each(SEARCHES)('search %j gives the hits, order, scores and plan of the reference', async (query, options) => {
      const { api, a } = await open();
      const ref = await openReference();
      const scope = await load(api, a);
      await load(ref, a);
      const got = await api.search(query, { ...options, scope });
      const want = await ref.search(query, { ...options, scope });
      expect(want.hits.length).toBeGreaterThan(0);
      expect(comparable(got)).toEqual(comparable(want));
    });

    it('search finds the best memory first, reads only the scope and the named collections, and says what it degraded', async () => {
      const { api, a, b } = await open();
      const scope = await load(api, a);
      await api.add({ id: 'b-tea', text: 'Alice drinks green tea every morning' }, { scope: { tenant: b, user: 'alice' } });
      const result = await api.search('what does Alice drink in the morning? green tea', { scope });
      expect(result.hits[0]?.memory.id).toBe('tea');
      expect(result.hits.every((h) => h.memory.scope.tenant === a)).toBe(true);
      const scores = result.hits.map((h) => h.relevance);
      expect([...scores].sort((x, y) => y - x)).toEqual(scores);
      const collected = await api.search('tea in the morning', { scope, collections: ['health', 'home'], threshold: -1 });
      expect(collected.collections).toEqual({ searched: ['health', 'home'], denied: [] });
      expect(new Set(collected.hits.map((h) => h.collection))).toEqual(new Set(['health', 'home']));
      expect(collected.hits.map((h) => h.memory.id)).not.toContain('standup');
      const fine = await api.search('morning tea', { scope, mode: 'fine' });
      expect(fine.degraded.plan).toBeDefined();
    });

    it('search rejects bad options with the codes of every entry point', async () => {
      const { api, a } = await open();
      const scope = { tenant: a };
      await expectCode(api.search('', { scope }), 'INVALID_TEXT');
      await expectCode(api.search('q', { scope, topK: 0 }), 'INVALID_LIMIT');
      await expectCode(api.search('q', { scope, mode: 'psychic' as 'fast' }), 'INVALID_INPUT');
      await expectCode(api.search('q', { scope, types: ['Nope' as 'UserMemory'] }), 'INVALID_INPUT');
      await expectCode(api.search('q', { scope, paths: ['nowhere' as 'user'] }), 'INVALID_INPUT');
      await expectCode(api.search('q', { scope, reranker: 'nope' }), 'INVALID_INPUT');
      await expectCode(api.search('q', { scope, collections: ['x'.repeat(300)] }), 'INVALID_SCOPE');
      await expectCode(api.search('q', { scope, collections: [] }), 'INVALID_INPUT');
      await expectCode(api.search('q', { scope, limit: 5 } as never), 'INVALID_INPUT');
      await expectCode(api.search('q', { scope: { user: 'u' } as never }), 'INVALID_SCOPE');
    });

    vectorCases({ open: () => open(), openReference });

    it('an empty tenant recalls nothing without error', async () => {
      const { api, a } = await open();
      const result = await api.recall('anything at all', { scope: { tenant: a } });
      expect(result.hits).toEqual([]);
    });

    it('after close every call throws STORE_CLOSED', async () => {
      const { api, a } = await open();
      await api.close();
      await expectCode(api.add({ text: 'late' }, { scope: { tenant: a } }), 'STORE_CLOSED');
      await expectCode(api.recall('late', { scope: { tenant: a } }), 'STORE_CLOSED');
      await expectCode(api.search('late', { scope: { tenant: a } }), 'STORE_CLOSED');
      await expectCode(api.list({ scope: { tenant: a } }), 'STORE_CLOSED');
    });
  });
}

export type { Memory };
