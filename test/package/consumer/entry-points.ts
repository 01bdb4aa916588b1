// A strict consumer of every entry point, written as a new user would. test/package type-checks
// it (strict, skipLibCheck off) in a project that installed the packed tarball, then runs it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Engram, EngramError, isEngramError, openStore, type Hit, type MemoryStore, type Scope } from 'engram-memory';
import { createLocalEmbedder, createLruEmbeddingCache, withCache, type Embedder } from 'engram-memory/embed';
import {
  engramMiddleware,
  formatContextBlock,
  wrapAnthropic,
  wrapBedrock,
  wrapGoogleGenAI,
  wrapOpenAI,
} from 'engram-memory/inject';
import { createMcpServer } from 'engram-memory/mcp';
import { RemoteEngram } from 'engram-memory/client';
import { parseSearchTypes } from 'engram-memory/search';
import { createKey, ERROR_HTTP_STATUS, startServer } from 'engram-memory/server';
import { createSqliteStore, type SqliteStore } from 'engram-memory/store';
import { createPgliteStore, createPostgresStore, type PostgresStore } from 'engram-memory/store/postgres';

/** `true` only for `any`: the assignments below fail to compile if a public type is `any`. */
type IsAny<T> = 0 extends 1 & T ? true : false;
const databaseIsTyped: IsAny<SqliteStore['database']> = false;
const postgresStoreIsTyped: IsAny<PostgresStore> = false;
const wrappersAreTyped: [IsAny<typeof wrapAnthropic>, IsAny<typeof wrapGoogleGenAI>, IsAny<typeof wrapBedrock>] = [
  false,
  false,
  false,
];
const middlewareIsTyped: IsAny<ReturnType<typeof engramMiddleware>> = false;

const scope: Scope = { tenant: 'acme', user: 'alice' };
const dir = mkdtempSync(join(tmpdir(), 'engram-consumer-'));
const embedder: Embedder = withCache(createLocalEmbedder(), createLruEmbeddingCache({ maxEntries: 100 }));

/** Adds two memories and recalls one of them: the texts of the hits, best first. */
async function roundTrip(store: MemoryStore): Promise<string[]> {
  const engram = await Engram.open({ store, embedder, ownResources: false });
  try {
    await engram.addMany(
      [{ text: 'Alice is allergic to peanuts', type: 'UserMemory' }, { text: 'Alice drives a blue Volvo' }],
      { scope },
    );
    const hits: Hit[] = (await engram.recall('Which food must Alice avoid?', { scope, limit: 1 })).hits;
    return hits.map((hit) => hit.memory.text);
  } finally {
    await engram.close();
    await store.close();
  }
}

async function viaServerAndClient(): Promise<string[]> {
  const serverDir = join(dir, 'server');
  const { key } = createKey({ dataDir: serverDir, tenant: 'acme' });
  const server = await startServer({ dataDir: serverDir, port: 0 });
  const remote = new RemoteEngram({ url: server.url, apiKey: key });
  try {
    await remote.add({ text: 'Alice prefers green tea' }, { scope });
    const missing = await remote.get('no-such-id', { scope });
    const denied = await new RemoteEngram({ url: server.url, apiKey: 'egk_bad_key' }).recall('tea', { scope }).then(
      () => 'no error',
      (error: unknown) => (isEngramError(error) ? error.code : 'not an EngramError'),
    );
    const { hits } = await remote.recall('What does Alice drink?', { scope });
    return [...hits.map((hit) => hit.memory.text), `missing:${String(missing)}`, `bad key:${denied}`];
  } finally {
    await remote.close();
    await server.close();
  }
}

async function viaMcp(): Promise<string[]> {
  const engram = await Engram.open({
    store: createSqliteStore({ path: join(dir, 'mcp', 'engram.db') }),
    embedder,
    ownResources: false,
  });
  const server = createMcpServer({
    api: engram,
    principal: { keyId: 'local', tenant: 'acme', access: 'read-write', collections: null },
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'consumer', version: '1.0.0' });
  await client.connect(clientTransport);
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    await client.callTool({ name: 'add_memory', arguments: { text: 'Alice plays the cello', user: 'alice' } });
    const found = await client.callTool({ name: 'search_memories', arguments: { query: 'instrument', user: 'alice' } });
    return [...tools, JSON.stringify(found.content)];
  } finally {
    await client.close();
    await engram.close();
  }
}

const postgresUrl = process.env['ENGRAM_TEST_POSTGRES_URL'];
if (postgresUrl === undefined) throw new Error('ENGRAM_TEST_POSTGRES_URL names the PostgreSQL server to use');

const report = {
  typed: [databaseIsTyped, postgresStoreIsTyped, ...wrappersAreTyped, middlewareIsTyped].every((t) => t === false),
  sqlite: await roundTrip(createSqliteStore({ path: join(dir, 'sqlite', 'nested', 'engram.db') })),
  openStore: await roundTrip(await openStore(join(dir, 'open-store', 'engram.db'))),
  pglite: await roundTrip(await createPgliteStore()),
  postgres: await roundTrip(await createPostgresStore({ connectionString: postgresUrl })),
  server: await viaServerAndClient(),
  mcp: await viaMcp(),
  inject: { emptyBlock: formatContextBlock([]), wrapOpenAI: typeof wrapOpenAI },
  search: parseSearchTypes('long-term,preference'),
  errors: {
    notFound: ERROR_HTTP_STATUS.NOT_FOUND,
    isEngramError: new EngramError('INVALID_INPUT', 'x') instanceof Error,
  },
};
await embedder.close?.();
console.log(JSON.stringify(report));
