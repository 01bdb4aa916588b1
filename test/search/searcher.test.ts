import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import { createOpenAICompatibleChat } from '../../src/llm/openai-compatible-chat.js';
import type { MemoryInput } from '../../src/model/memory.js';
import type { Scope } from '../../src/model/scope.js';
import { createSearxngSearch } from '../../src/search/internet/searxng-search.js';
import { DECOMPOSE_PROMPT } from '../../src/search/plan/decompose-query.js';
import { TASK_PARSE_PROMPT } from '../../src/search/plan/fine-plan.js';
import { REASON_PROMPT } from '../../src/search/reason/memory-reasoner.js';
import { STAGE_PROMPT } from '../../src/search/reason/stage-judge.js';
import { noopReranker } from '../../src/search/rank/noop-reranker.js';
import type { Reranker } from '../../src/search/rank/reranker.js';
import { RerankerRegistry } from '../../src/search/rank/reranker-registry.js';
import { Searcher, type SearcherDeps } from '../../src/search/searcher.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import type { MemoryFilter } from '../../src/model/memory-filter.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createHashEmbedder } from '../support/hash-embedder.js';
import { startLocalServer, type LocalHttpServer, type ReceivedRequest } from '../support/local-http-server.js';

const scope: Scope = { tenant: 't1', user: 'u1' };
let engram: Engram;
let store: MemoryStore;
const embedder = createHashEmbedder({ dim: 128 });
const servers: LocalHttpServer[] = [];

const MEMORIES: MemoryInput[] = [
  { id: 'lt-passport', text: 'My passport is in the top drawer of the desk', type: 'LongTermMemory' },
  { id: 'lt-deadline', text: 'The Engram project deadline is Friday the 14th', type: 'LongTermMemory', tags: ['work', 'engram'] },
  { id: 'lt-hotel', text: 'Booked the Lakeview hotel for the Hangzhou trip', type: 'LongTermMemory', tags: ['travel', 'hotel', 'hangzhou'] },
  { id: 'lt-hotel-one-tag', text: 'Hotels near the airport are noisy', type: 'LongTermMemory', tags: ['hotel'] },
  { id: 'lt-zebra', text: 'Stored in the blue box under the stairs', type: 'LongTermMemory', key: 'zebra' },
  { id: 'lt-dup-1', text: 'Coffee with oat milk every morning', type: 'LongTermMemory' },
  { id: 'lt-dup-2', text: 'Coffee with oat milk every morning', type: 'UserMemory' },
  { id: 'user-name', text: 'The user is called Ada and lives in Lisbon', type: 'UserMemory' },
  { id: 'work-now', text: 'Currently drafting the deadline email', type: 'WorkingMemory' },
  { id: 'tool-schema', text: 'send_email(to, subject, body) sends an email', type: 'ToolSchemaMemory' },
  { id: 'skill-1', text: 'To plan a trip: book hotel, then trains', type: 'SkillMemory' },
  { id: 'pref-1', text: 'Prefers window seats on trains', type: 'PreferenceMemory' },
  { id: 'archived', text: 'The passport used to be in the car', type: 'LongTermMemory', status: 'archived' },
];

beforeEach(async () => {
  store = createSqliteStore({ path: ':memory:' });
  engram = await Engram.open({ store, embedder, ownResources: false, trackUsage: false });
  await engram.addMany(MEMORIES, { scope });
  await engram.add({ id: 'lt-session', text: 'Passport renewal form was mailed', sources: [] }, { scope: { ...scope, session: 's1' } });
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await engram.close();
  await store.close();
});

function searcher(extra: Partial<SearcherDeps> = {}): Searcher {
  return new Searcher({ store, embedder, ...extra });
}

/** A local OpenAI-compatible server that answers by the system prompt it receives. */
async function llmServer(route: (system: string, user: string, index: number) => string | { status: number }) {
  const server = await startLocalServer((req: ReceivedRequest, i) => {
    const messages = (req.body as { messages: Array<{ role: string; content: string }> }).messages;
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const user = messages.find((m) => m.role === 'user')?.content ?? '';
    const answer = route(system, user, i);
    if (typeof answer !== 'string') return { status: answer.status, json: { error: 'x' } };
    return { json: { choices: [{ message: { role: 'assistant', content: answer } }] } };
  });
  servers.push(server);
  return { server, llm: createOpenAICompatibleChat({ baseUrl: server.url, model: 'm', retries: 0, timeoutMs: 3_000 }) };
}

describe('Searcher, fast mode', () => {
  it('searches every path in parallel and explains each hit', async () => {
    const result = await searcher().search('where is my passport', { scope });
    const ids = result.hits.map((h) => h.memory.id);
    expect(ids[0]).toBe('lt-passport');
    expect(ids).not.toContain('archived');
    expect(ids).toContain('work-now');
    const top = result.hits[0];
    expect(top?.explanation.paths).toEqual(['long-term']);
    expect(Object.keys(top?.explanation.channels ?? {}).sort()).toEqual(['bm25', 'dense']);
    expect(top?.relevance).toBeCloseTo(top?.explanation.fused ?? NaN);
    expect(top?.collection).toBeNull();
    expect(result.plan).toMatchObject({
      mode: 'fast',
      queryTexts: ['where is my passport'],
      keywordTerms: [],
      paths: ['working', 'long-term', 'user', 'tool', 'skill', 'preference'],
      reranker: 'noop',
    });
    expect(Object.keys(result.timings.paths).sort()).toEqual(['long-term', 'preference', 'skill', 'tool', 'user', 'working']);
    expect(result.timings.channels.dense).toBeGreaterThanOrEqual(0);
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.pathsMs);
    for (let i = 1; i < result.hits.length; i++) {
      expect(result.hits[i - 1]?.relevance).toBeGreaterThanOrEqual(result.hits[i]?.relevance ?? Infinity);
    }
  });

  it('ranks the long-term path exactly like the core recall', async () => {
    const query = 'passport drawer deadline';
    const recall = await engram.recall(query, { scope, limit: 5, threshold: -1, types: ['LongTermMemory'] });
    const result = await searcher().search(query, { scope, topK: 5, types: ['LongTermMemory'] });
    expect(result.plan.paths).toEqual(['long-term']);
    const longTerm = result.hits.filter((h) => h.explanation.paths.includes('long-term'));
    expect(longTerm.map((h) => h.memory.id).slice(0, 5)).toEqual(recall.hits.map((h) => h.memory.id));
    expect(longTerm[0]?.explanation.fused).toBeCloseTo(recall.hits[0]?.score ?? NaN, 6);
  });

  it('adds the full-text channel inside scope paths with fulltext (or fastGraph)', async () => {
    const result = await searcher().search('where is my passport', { scope, fulltext: true });
    expect(result.plan.keywordTerms).toEqual(['passport']);
    expect(result.hits[0]?.explanation.channels).toMatchObject({ dense: expect.any(Number), bm25: expect.any(Number), fulltext: expect.any(Number) });
    expect(result.timings.channels.fulltext).toBeGreaterThanOrEqual(0);
  });

  it('runs the opt-in keyword path on request, with the full-text channel alone', async () => {
    const result = await searcher().search('where is my passport', { scope, paths: ['keyword'] });
    expect(result.plan.paths).toEqual(['keyword']);
    expect(result.hits[0]?.memory.id).toBe('lt-passport');
    expect(Object.keys(result.hits[0]?.explanation.channels ?? {})).toEqual(['fulltext']);
    expect(result.hits.every((h) => h.explanation.paths.join() === 'keyword')).toBe(true);
  });

  it('runs only the paths of the requested types and keeps per-type top-k', async () => {
    const result = await searcher().search('trip hotel trains', { scope, types: ['SkillMemory', 'PreferenceMemory'], bucketLimits: { skillTopK: 1 } });
    expect(result.plan.paths).toEqual(['skill', 'preference']);
    expect(result.hits.map((h) => h.memory.type).sort()).toEqual(['PreferenceMemory', 'SkillMemory']);
  });

  it('dedupes identical texts across paths, keeping the best score', async () => {
    const result = await searcher().search('oat milk coffee', { scope });
    const coffee = result.hits.filter((h) => h.memory.text.startsWith('Coffee'));
    expect(coffee).toHaveLength(1);
    const undeduped = await searcher().search('oat milk coffee', { scope, dedupe: false });
    const both = undeduped.hits.filter((h) => h.memory.text.startsWith('Coffee'));
    expect(both).toHaveLength(2);
    expect(coffee[0]?.relevance).toBe(Math.max(...both.map((h) => h.relevance)));
  });

  it('finds by key and by two shared tags with fastGraph, not by one tag', async () => {
    const plain = await searcher().search('zebra', { scope, types: ['LongTermMemory'] });
    expect(plain.hits.find((h) => h.memory.id === 'lt-zebra')?.explanation.channels.graph).toBeUndefined();
    const graph = await searcher().search('zebra', { scope, types: ['LongTermMemory'], fastGraph: true });
    expect(graph.hits.find((h) => h.memory.id === 'lt-zebra')?.explanation.channels.graph).toBe(1);
    const tags = await searcher().search('hotel hangzhou', { scope, types: ['LongTermMemory'], fastGraph: true });
    expect(tags.hits.find((h) => h.memory.id === 'lt-hotel')?.explanation.channels.graph).toBe(1);
    expect(tags.hits.find((h) => h.memory.id === 'lt-hotel-one-tag')?.explanation.channels.graph).toBeUndefined();
  });

  it('adds a priority dense pass restricted to the session', async () => {
    const result = await searcher().search('passport renewal', { scope, priority: { session: 's1' } });
    const hit = result.hits.find((h) => h.memory.id === 'lt-session');
    expect(hit?.explanation.channels['dense.priority']).toBeCloseTo(hit?.explanation.channels.dense ?? NaN);
    expect(result.hits.find((h) => h.memory.id === 'lt-passport')?.explanation.channels['dense.priority']).toBeUndefined();
  });

  it('uses the named reranker, applies boosts, applies the threshold', async () => {
    const result = await searcher().search('passport', { scope, reranker: 'cosine-local', boost: { sessionId: 's1' }, threshold: 0.05 });
    const session = result.hits.find((h) => h.memory.id === 'lt-session');
    expect(session?.explanation.rerank?.name).toBe('cosine-local');
    expect(session?.explanation.boost).toBeCloseTo(1.3);
    expect(session?.relevance).toBeCloseTo(Math.min(1, (session?.explanation.rerank?.score ?? NaN) * 1.3));
    expect(result.hits.every((h) => h.relevance >= 0.05)).toBe(true);
    await expect(searcher().search('x', { scope, reranker: 'nope' })).rejects.toThrow(/available: cosine-local, noop/);
  });

  it('records usage of what it returned, in the background', async () => {
    const recorded: string[][] = [];
    const result = await searcher({ recordUsage: (_t, ids) => recorded.push(ids) }).search('passport', { scope, topK: 2 });
    expect(recorded).toEqual([result.hits.map((h) => h.memory.id)]);
  });

  it('overlaps the paths where they wait: their rerankers run together, or one after another with sequential', async () => {
    let inFlight = 0;
    let most = 0;
    const waiting: Reranker = {
      name: 'waiting',
      async rerank(request) {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return noopReranker.rerank(request);
      },
    };
    const s = searcher({ rerankers: new RerankerRegistry([waiting]) });
    const parallel = await s.search('passport drawer', { scope, reranker: 'waiting' });
    expect(most).toBe(6);
    most = 0;
    const sequential = await s.search('passport drawer', { scope, reranker: 'waiting', sequential: true });
    expect(most).toBe(1);
    expect(parallel.hits.map((h) => h.memory.id)).toEqual(sequential.hits.map((h) => h.memory.id));
  });

  it('asks the store once per channel for all paths (one shared search split by type), in order on an inline store unless told, ids alone for working memory', async () => {
    const calls: Record<string, number> = {};
    let inFlight = 0;
    let most = 0;
    const counted: MemoryStore = new Proxy(store, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (prop === 'denseSearchGroups' || prop === 'lexicalSearchGroups') return undefined;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          calls[String(prop)] = (calls[String(prop)] ?? 0) + 1;
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const searcherOver = new Searcher({ store: counted, embedder });
    // SQLite answers inline: by default its reads are issued one after another.
    expect(counted.answersInline).toBe(true);
    const inOrder = await searcherOver.search('passport drawer', { scope });
    expect(most).toBe(1);
    for (const key of Object.keys(calls)) delete calls[key];
    most = 0;
    const result = await searcherOver.search('passport drawer', { scope, sequential: false });
    expect(result.hits[0]?.memory.id).toBe('lt-passport');
    const ranked = (r: typeof result): Array<[string, number]> => r.hits.map((h) => [h.memory.id, h.relevance]);
    expect(ranked(result)).toEqual(ranked(inOrder));
    // One dense and one BM25 search shared by the five scope paths (the scope is small: no path is
    // left short of its k), issued at once with the working path's newest ids when asked to run in parallel.
    expect(most).toBeGreaterThanOrEqual(3);
    // No estimates (the spread fusion reads the unscored candidates' exact cosines); rows and
    // vectors read once; texts for each shared search's split by type and for the pool documents.
    expect(calls).toMatchObject({ denseSearch: 1, lexicalSearch: 1, newestIds: 1, get: 1 });
    expect(calls.list ?? 0).toBe(0);
    expect(calls.getVectors ?? 0).toBeLessThanOrEqual(1);
    expect(calls.getTexts ?? 0).toBeLessThanOrEqual(3);
  });

  it('ranks from the documents SQLite’s searches and newest ids bring, reading no text', async () => {
    const asked: string[] = [];
    const watched: MemoryStore = new Proxy(store, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const call = (...args: unknown[]): unknown => (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop !== 'getTexts') return call;
        return (...args: unknown[]) => {
          asked.push(...(args[1] as string[]));
          return call(...args);
        };
      },
    });
    const over = new Searcher({ store: watched, embedder });
    // The first search builds the lexical index (and its documents) after its dense search.
    await over.search('passport drawer', { scope });
    asked.length = 0;
    const result = await over.search('passport drawer', { scope });
    expect(result.hits[0]?.memory.id).toBe('lt-passport');
    expect(result.hits.map((h) => h.memory.id)).toContain('work-now');
    expect(asked).toEqual([]);
    // The same ranking as from texts: a store that brings no documents.
    const strip = (hit: unknown): unknown =>
      typeof hit === 'object' && hit !== null ? { ...hit, document: undefined } : hit;
    const stripAll = (out: unknown): unknown =>
      Array.isArray(out) ? out.map((x) => (Array.isArray(x) ? x.map(strip) : strip(x))) : out;
    const plain: MemoryStore = new Proxy(store, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const call = (...args: unknown[]): Promise<unknown> =>
          (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (prop === 'getTexts' || prop === 'newestIds')
          return async (...args: unknown[]) => stripAll(await call(...args));
        if (prop === 'denseSearch' || prop === 'lexicalSearch' || String(prop).endsWith('Groups'))
          return async (query: object) => stripAll(await call({ ...query, analyzer: undefined }));
        return value.bind(target);
      },
    });
    const fromTexts = await new Searcher({ store: plain, embedder }).search('passport drawer', { scope });
    const ranked = (r: typeof result) => r.hits.map((h) => [h.memory.id, h.relevance, h.explanation]);
    expect(ranked(result)).toEqual(ranked(fromTexts));
  });

  it('keeps a rare type in its bucket when the shared pool is full of other types', async () => {
    const crowd: MemoryInput[] = Array.from({ length: 150 }, (_, i) => ({
      text: `Passport note ${i}: the passport renewal needs photo ${i}`,
      type: 'LongTermMemory',
    }));
    await engram.addMany(crowd, { scope });
    // No threshold: what is checked is which candidates each bucket gets, not their scores.
    const result = await searcher().search('passport renewal photo', { scope, threshold: -1 });
    const ids = result.hits.map((h) => h.memory.id);
    // The shared pool (100) holds long-term notes only; the skill and preference paths search their own k.
    expect(ids).toContain('skill-1');
    expect(ids).toContain('pref-1');
    expect(result.hits.filter((h) => h.memory.type === 'LongTermMemory')).toHaveLength(10);
  });

  it('runs paths sequentially on request with the same hits', async () => {
    const a = await searcher().search('deadline friday', { scope });
    const b = await searcher().search('deadline friday', { scope, sequential: true });
    expect(b.hits.map((h) => h.memory.id)).toEqual(a.hits.map((h) => h.memory.id));
  });
});

describe('collections', () => {
  it('searches readable collections only and labels each hit', async () => {
    await engram.add({ id: 'col-a', text: 'Alpha collection passport note' }, { scope: { ...scope, collection: 'a' } });
    await engram.add({ id: 'col-b', text: 'Beta collection passport note' }, { scope: { ...scope, collection: 'b' } });
    await engram.add({ id: 'col-s', text: 'Secret collection passport note' }, { scope: { ...scope, collection: 'secret' } });
    const touched = new Set<string | undefined>();
    const watched: MemoryStore = new Proxy(store, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const first = args[0] as { filter?: MemoryFilter; scope?: Scope } | undefined;
          touched.add(first?.filter?.scope.collection ?? first?.scope?.collection);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const s = new Searcher({ store: watched, embedder, canRead: (_scope, c) => c !== 'secret' });
    const result = await s.search('passport note', { scope, collections: ['a', 'b', 'secret'] });
    expect(result.collections).toEqual({ searched: ['a', 'b'], denied: ['secret'] });
    const byId = new Map(result.hits.map((h) => [h.memory.id, h.collection]));
    expect(byId.get('col-a')).toBe('a');
    expect(byId.get('col-b')).toBe('b');
    expect(byId.has('col-s')).toBe(false);
    expect(byId.has('lt-passport')).toBe(false);
    expect(touched.has('secret')).toBe(false);
    expect(touched.has('a')).toBe(true);
  });
});

describe('internet', () => {
  it('adds SearXNG results as OuterMemory hits ranked with local memories', async () => {
    const searx = await startLocalServer(() => ({
      json: { results: [{ url: 'https://travel.example/passport', title: 'Passport renewal guide', content: 'How to renew a passport', publishedDate: '2025-03-01' }] },
    }));
    servers.push(searx);
    const s = searcher({ web: [createSearxngSearch({ baseUrl: searx.url })] });
    const off = await s.search('passport renewal', { scope });
    expect(off.hits.some((h) => h.memory.type === 'OuterMemory')).toBe(false);
    expect(searx.requests).toHaveLength(0);
    const on = await s.search('passport renewal', { scope, internet: true });
    const web = on.hits.find((h) => h.memory.type === 'OuterMemory');
    expect(web?.memory.metadata).toMatchObject({ url: 'https://travel.example/passport', title: 'Passport renewal guide', date: '2025-03-01' });
    expect(web?.explanation.paths).toEqual(['internet']);
    expect(web?.explanation.cosine).toBeGreaterThan(0);
    expect(on.plan.paths).toContain('internet');
  });

  it('says so when internet results are asked for but no provider is configured', async () => {
    const result = await searcher().search('passport drawer', { scope, internet: true });
    expect(result.degraded.internet).toBe('no web search provider configured');
    expect(result.plan.paths).not.toContain('internet');
  });

  it('a failing provider degrades to local results', async () => {
    const down = await startLocalServer(() => ({ status: 503, json: {} }));
    servers.push(down);
    const s = searcher({ web: [createSearxngSearch({ baseUrl: down.url, retries: 0 })] });
    const result = await s.search('passport drawer', { scope, internet: true });
    expect(result.hits[0]?.memory.id).toBe('lt-passport');
    expect(result.degraded['internet.searxng']).toMatch(/503/);
  });
});

describe('LLM stages', () => {
  it('fine mode embeds the expansions in one batch; a failing planner falls back to fast', async () => {
    const { llm } = await llmServer((system) =>
      system === TASK_PARSE_PROMPT
        ? '{"keys":["zebra"],"tags":[],"rephrased_query":"where is the passport kept","memories":["passport is in a drawer","passport location"],"internet_search":false,"goal_type":"question"}'
        : '{}',
    );
    const calls = embedder.calls;
    const result = await searcher({ llm }).search('passport?', { scope, mode: 'fine' });
    expect(embedder.calls - calls).toBe(1);
    expect(result.plan.info.mode).toBe('fine');
    expect(result.plan.queryTexts).toEqual(['where is the passport kept', 'passport is in a drawer', 'passport location']);
    expect(result.hits.find((h) => h.memory.id === 'lt-zebra')?.explanation.channels.graph).toBe(1);

    const broken = await llmServer(() => ({ status: 500 }));
    const fallback = await searcher({ llm: broken.llm }).search('passport drawer', { scope, mode: 'fine' });
    expect(fallback.plan.info.mode).toBe('fast');
    expect(fallback.degraded.plan).toMatch(/500/);
    expect(fallback.hits[0]?.memory.id).toBe('lt-passport');
  });

  it('the reasoner keeps only the ids the model selects', async () => {
    const { llm, server } = await llmServer((system) => (system === REASON_PROMPT ? 'I pick: {"selected_ids": ["lt-deadline"]}' : '{}'));
    const result = await searcher({ llm }).search('deadline', { scope, reason: true });
    expect(result.hits.map((h) => h.memory.id)).toEqual(['lt-deadline']);
    const prompt = (server.requests[0]?.body as { messages: Array<{ content: string }> }).messages[1]?.content ?? '';
    expect(prompt).toContain('[lt-deadline] LongTermMemory: The Engram project deadline is Friday the 14th');
  });

  it('deep search retrieves missing phrases until the model can answer, skipping a failing stage', async () => {
    let stageCalls = 0;
    const { llm } = await llmServer((system) => {
      if (system === TASK_PARSE_PROMPT) return '{"keys":[],"tags":[],"rephrased_query":"what is in the blue box","memories":["blue box contents"],"internet_search":false,"goal_type":"question"}';
      if (system === DECOMPOSE_PROMPT) return '{"is_complex": false, "sub_questions": []}';
      if (system === STAGE_PROMPT) {
        stageCalls++;
        if (stageCalls === 1) return 'not json at all';
        if (stageCalls === 2) return '{"can_answer": false, "reason": "need the zebra", "retrieval_phrases": ["Lakeview hotel Hangzhou"]}';
        return '{"can_answer": true, "reason": "ok", "retrieval_phrases": []}';
      }
      return '{}';
    });
    const result = await searcher({ llm }).search('what is in the blue box', { scope, mode: 'deep', topK: 3, types: ['LongTermMemory'] });
    expect(result.plan.stages).toEqual([
      { stage: 1, canAnswer: false, phrases: [], error: expect.stringMatching(/no JSON/) },
      { stage: 2, canAnswer: false, phrases: ['Lakeview hotel Hangzhou'] },
      { stage: 3, canAnswer: true, phrases: [] },
    ]);
    expect(result.hits.find((h) => h.memory.id === 'lt-hotel')?.explanation.stage).toBe(2);
    expect(result.degraded['deep.0']).toMatch(/stage 1/);
    expect(stageCalls).toBe(3);
  });
});
