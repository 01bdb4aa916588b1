import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKeyStore, type KeyStore } from '../../src/auth/key-store.js';
import { RemoteEngram } from '../../src/client/remote-engram.js';
import { Engram } from '../../src/engram.js';
import { createOpenAICompatibleChat } from '../../src/llm/openai-compatible-chat.js';
import { createHttpReranker } from '../../src/search/rank/http-reranker.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';

// POST /v1/search is the served facade's search: the LLM, the rerankers, usage tracking and the
// model check configured on the Engram apply over HTTP exactly as in process. The LLM and the
// reranker are real HTTP services on 127.0.0.1 speaking the OpenAI chat and rerank wire formats.
const PLAN =
  '{"keys":["tea"],"tags":["drink"],"rephrased_query":"What does Alice drink?","memories":["Alice drinks tea","morning drink"],"internet_search":false,"goal_type":"question"}';

let dir: string;
let store: MemoryStore;
let engram: Engram;
let keys: KeyStore;
let server: RunningServer;
let llmServer: LocalHttpServer;
let rerankServer: LocalHttpServer;
let remote: RemoteEngram;
const scope = { tenant: 'acme', user: 'alice' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-search-route-'));
  llmServer = await startLocalServer(() => ({
    json: { choices: [{ message: { role: 'assistant', content: PLAN } }] },
  }));
  // Scores documents by length: the opposite of the fusion's order often enough to see it applied.
  rerankServer = await startLocalServer((request) => {
    const documents = (request.body as { documents: string[] }).documents;
    return { json: { results: documents.map((d, index) => ({ index, relevance_score: 1 / d.length })) } };
  });
  store = createSqliteStore({ path: join(dir, 'engram.sqlite') });
  engram = await Engram.open({
    store,
    embedder: new HashedEmbedder(),
    ownResources: false,
    search: {
      llm: createOpenAICompatibleChat({ baseUrl: llmServer.url, model: 'planner', retries: 0, timeoutMs: 2_000 }),
      rerankers: [createHttpReranker({ url: rerankServer.url, model: 'bge-reranker' })],
    },
  });
  await engram.addMany(
    [
      { id: 'tea', text: 'Alice drinks green tea every morning' },
      { id: 'coffee', text: 'Alice never drinks coffee after noon, it keeps her awake' },
      { id: 'cat', text: 'The cat is named Whiskers' },
    ],
    { scope },
  );
  keys = openKeyStore({ path: ':memory:' });
  server = await startServer({ dataDir: dir, port: 0, engram, keys, search: { rerankers: engram.rerankerNames() } });
  remote = new RemoteEngram({ url: server.url, apiKey: keys.create({ tenant: 'acme' }).key });
}, 30_000);

afterAll(async () => {
  await server?.close();
  await engram?.close();
  await store?.close();
  keys?.close();
  await llmServer?.close();
  await rerankServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ranking = (hits: Array<{ memory: { id: string }; relevance: number }>) =>
  hits.map((h) => [h.memory.id, h.relevance]);

describe('POST /v1/search runs the facade', () => {
  it("uses the facade's rerankers: the http reranker answers over HTTP as in process", async () => {
    const before = rerankServer.requests.length;
    const overHttp = await remote.search('what does Alice drink', { scope, reranker: 'http', threshold: -1 });
    expect(rerankServer.requests.length).toBeGreaterThan(before);
    expect(overHttp.plan.reranker).toBe('http');
    expect(overHttp.hits[0]?.explanation.rerank?.name).toBe('http');
    const inProcess = await engram.search('what does Alice drink', { scope, reranker: 'http', threshold: -1 });
    expect(ranking(overHttp.hits)).toEqual(ranking(inProcess.hits));
  });

  it("plans fine mode with the facade's LLM instead of falling back to fast", async () => {
    const before = llmServer.requests.length;
    const result = await remote.search('what does Alice drink', { scope, mode: 'fine' });
    expect(llmServer.requests.length).toBeGreaterThan(before);
    expect(result.plan.info.mode).toBe('fine');
    expect(result.degraded.plan).toBeUndefined();
    expect(result.plan.queryTexts).toContain('What does Alice drink?');
  });

  it('records use of the returned memories', async () => {
    const result = await remote.search('Whiskers the cat', { scope, topK: 1 });
    expect(result.hits[0]?.memory.id).toBe('cat');
    let count = 0;
    for (let i = 0; i < 50 && count === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      count = (await engram.get('cat', { scope }))?.usage.count ?? 0;
    }
    expect(count).toBeGreaterThan(0);
  });

  it('refuses a scope that holds vectors of another embedding model (MODEL_MISMATCH, 409)', async () => {
    const other = await Engram.open({ store, embedder: new HashedEmbedder({ dim: 32 }), ownResources: false });
    await other.add({ text: 'embedded with another model' }, { scope: { tenant: 'acme', user: 'bob' } });
    await other.close();
    const error = await remote
      .search('another model', { scope: { tenant: 'acme', user: 'bob' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MODEL_MISMATCH' });
  });

  it('advertises the facade rerankers to the inspector', async () => {
    const key = keys.create({ tenant: 'acme' }).key;
    const who = await fetch(`${server.url}/v1/inspector/whoami`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await who.json()) as { rerankers: string[] }).rerankers).toEqual(['cosine-local', 'http', 'noop']);
  });
});
