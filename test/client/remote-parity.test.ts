import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RecallOptions } from '../../src/model/api.js';
import { openKeyStore, type KeyStore } from '../../src/auth/key-store.js';
import { RemoteEngram } from '../../src/client/remote-engram.js';
import { Engram } from '../../src/engram.js';
import type { MemoryInput } from '../../src/model/memory.js';
import { MEMORY_TYPES } from '../../src/model/memory-type.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

// Two independent Engrams (separate SQLite files) loaded with the same data: one called in
// process, the other through a real server and RemoteEngram. Same hits, order and scores.
const WORDS = ('tea coffee paris london hiking alps cat dog tuna bones jazz piano guitar birthday ' +
  'meeting project deadline doctor allergy peanut sister brother garden tomato bicycle train flight ' +
  'museum painting novel chess marathon swimming yoga recipe pasta curry sushi').split(' ');

function corpus(n: number): MemoryInput[] {
  let seed = 42;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 4 + Math.floor(rand() * 8) }, () => WORDS[Math.floor(rand() * WORDS.length)]);
    return {
      id: `m${i}`,
      text: `${words.join(' ')} number ${i}`,
      type: MEMORY_TYPES[i % 3],
      tags: [WORDS[i % 7] as string],
    };
  });
}

const clock = () => new Date('2025-01-01T00:00:00.000Z');
let dir: string;
let local: Engram;
let served: Engram;
let server: RunningServer;
let keys: KeyStore;
let remote: RemoteEngram;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-parity-'));
  const data = corpus(600);
  const open = (file: string) =>
    Engram.open({ store: createSqliteStore({ path: join(dir, file) }), embedder: new HashedEmbedder(), clock, trackUsage: false });
  local = await open('local.sqlite');
  served = await open('served.sqlite');
  for (const engram of [local, served]) {
    await engram.addMany(data.slice(0, 400), { scope: { tenant: 'acme', user: 'alice' } });
    await engram.addMany(data.slice(400), { scope: { tenant: 'acme', user: 'bob' } });
  }
  keys = openKeyStore({ path: ':memory:' });
  server = await startServer({ dataDir: dir, port: 0, engram: served, keys, closeEngram: true });
  remote = new RemoteEngram({ url: server.url, apiKey: keys.create({ tenant: 'acme', access: 'read' }).key });
});

afterAll(async () => {
  await server?.close();
  await local?.close();
  keys?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CASES: Array<[string, Omit<RecallOptions, 'scope'> & { user?: string }]> = [
  ['green tea in paris', {}],
  ['tea', { limit: 10, threshold: -1 }],
  ['hiking the alps with my dog', { limit: 20, threshold: 0 }],
  ['jazz piano guitar', { profile: 'seed', limit: 8 }],
  ['doctor allergy peanut', { types: ['UserMemory', 'LongTermMemory'], limit: 15, threshold: -1 }],
  ['birthday of my sister', { user: 'bob', limit: 10, threshold: -1 }],
  ['sushi', { lexicalWeight: 0.4, lexicalWeightShort: 0.05, limit: 12, threshold: -1 }],
  ['number 17', { limit: 5, threshold: -1 }],
];

it.each(CASES)('recall %j gives the same hits, order and scores in process and over HTTP', async (query, options) => {
  const { user, ...rest } = options;
  const scope = { tenant: 'acme', ...(user ? { user } : {}) };
  const inProcess = await local.recall(query, { ...rest, scope });
  const overHttp = await remote.recall(query, { ...rest, scope });
  expect(inProcess.hits.length).toBeGreaterThan(0);
  expect(overHttp.hits.map((h) => h.memory.id)).toEqual(inProcess.hits.map((h) => h.memory.id));
  expect(overHttp.hits.map((h) => h.score)).toEqual(inProcess.hits.map((h) => h.score));
  expect(overHttp.hits).toEqual(inProcess.hits);
  expect(overHttp.cut).toEqual(inProcess.cut);
  expect(overHttp.poolSize).toBe(inProcess.poolSize);
});

it.each([
  ['green tea in paris', { topK: 10, threshold: -1 }],
  ['hiking the alps with my dog', { topK: 5, reranker: 'cosine-local', types: ['LongTermMemory', 'UserMemory'] }],
  ['jazz piano', { topK: 8, mmrLambda: 0.7, threshold: -1, user: 'bob' }],
] as const)('search %j gives the same hits through the server as the in-process Engram.search', async (query, options) => {
  const { user, ...rest } = options as { user?: string; topK: number };
  const scope = { tenant: 'acme', ...(user ? { user } : {}) };
  const inProcess = await local.search(query, { ...rest, scope });
  const overHttp = await remote.search(query, { ...rest, scope });
  expect(inProcess.hits.length).toBeGreaterThan(0);
  expect(overHttp.hits.map((h) => [h.memory.id, h.relevance])).toEqual(inProcess.hits.map((h) => [h.memory.id, h.relevance]));
  expect(overHttp.hits).toEqual(inProcess.hits);
  expect(overHttp.plan).toEqual(inProcess.plan);
});

it('list pages and stats agree too', async () => {
  const a = await local.list({ scope: { tenant: 'acme', user: 'alice' }, limit: 37, order: 'createdAt', direction: 'desc' });
  const b = await remote.list({ scope: { tenant: 'acme', user: 'alice' }, limit: 37, order: 'createdAt', direction: 'desc' });
  expect(b).toEqual(a);
  expect(await remote.stats({ scope: { tenant: 'acme' } })).toEqual(await local.stats({ scope: { tenant: 'acme' } }));
});
