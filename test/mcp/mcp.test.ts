import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataDirKeyStore } from '../../src/auth/key-admin.js';
import { Engram } from '../../src/engram.js';
import { DATABASE_FILE } from '../../src/open-default-engram.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startHarness, type Harness } from '../server/server-harness.js';

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; data: Record<string, unknown> }> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  return {
    isError: result.isError === true,
    data: JSON.parse(result.content[0]?.text ?? 'null') as Record<string, unknown>,
  };
}

/** The same scenario over any transport: the client acts as tenant `acme` (read-write). */
async function scenario(client: Client): Promise<void> {
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual([
    'add_memory',
    'delete_memory',
    'list_memories',
    'memory_history',
    'remember',
    'search_memories',
  ]);
  const search = tools.tools.find((t) => t.name === 'search_memories');
  expect(search?.inputSchema.required).toEqual(['query']);

  const added = await call(client, 'add_memory', {
    text: 'Alice drinks green tea every morning',
    tags: ['drink'],
    user: 'alice',
  });
  expect(added.isError).toBe(false);
  const memory = added.data.memory as { id: string; scope: { tenant: string; user: string } };
  expect(memory.scope).toEqual({ tenant: 'acme', user: 'alice' });
  await call(client, 'add_memory', { text: 'Bob rides a red bicycle to work', user: 'bob' });

  const found = await call(client, 'search_memories', {
    query: 'what does Alice drink? green tea',
    topK: 3,
    threshold: -1,
  });
  const hits = found.data.hits as Array<{ id: string; text: string; score: number }>;
  expect(hits[0]?.id).toBe(memory.id);
  expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? -2);
  const narrowed = await call(client, 'search_memories', { query: 'green tea', user: 'bob', threshold: -1 });
  expect((narrowed.data.hits as Array<{ id: string }>).map((h) => h.id)).not.toContain(memory.id);

  const page1 = await call(client, 'list_memories', { limit: 1 });
  expect((page1.data.items as unknown[]).length).toBe(1);
  const page2 = await call(client, 'list_memories', { limit: 1, cursor: page1.data.nextCursor });
  expect((page2.data.items as unknown[]).length).toBe(1);
  expect(page2.data.nextCursor).toBeNull();

  const forged = await call(client, 'list_memories', { tenant: 'someone-else' });
  expect(forged.isError).toBe(true);
  expect((forged.data.error as { code: string }).code).toBe('FORBIDDEN');
  const bad = await call(client, 'add_memory', { text: '   ' });
  expect(bad.isError).toBe(true);
  expect((bad.data.error as { code: string }).code).toBe('INVALID_TEXT');

  // remember: repeated texts merge into one episode; its history names the connection's key.
  const remembered = await call(client, 'remember', {
    user: 'carol',
    messages: [
      { role: 'user', text: 'I keep bees on my roof.', session: 'm1' },
      { role: 'user', text: 'i keep bees on my roof!', session: 'm1' },
    ],
  });
  expect(remembered.isError).toBe(false);
  const turns = remembered.data.turns as Array<{ id: string; action: string; count: number }>;
  expect(turns.map((t) => [t.action, t.count])).toEqual([
    ['insert', 1],
    ['merge', 2],
  ]);
  const episodeHistory = await call(client, 'memory_history', { id: turns[0]?.id, user: 'carol' });
  const events = episodeHistory.data.items as Array<{ kind: string; caller: { kind: string; id: string | null } }>;
  expect(events.map((e) => e.kind)).toEqual(['created', 'confirmed']);
  expect(events[0]?.caller.kind).toBe('api-key');
  expect(events[0]?.caller.id).toEqual(expect.any(String));
  const blank = await call(client, 'remember', { messages: [{ role: 'user', text: '  ' }] });
  expect((blank.data.error as { code: string }).code).toBe('INVALID_TEXT');

  expect((await call(client, 'delete_memory', { id: memory.id })).data).toEqual({ deleted: true });
  const deletedHistory = await call(client, 'memory_history', { id: memory.id });
  expect((deletedHistory.data.items as Array<{ kind: string }>).map((e) => e.kind)).toEqual(['created', 'deleted']);
  expect((await call(client, 'delete_memory', { id: memory.id })).data).toEqual({ deleted: false });
  const after = await call(client, 'search_memories', { query: 'green tea', threshold: -1 });
  expect((after.data.hits as Array<{ id: string }>).map((h) => h.id)).not.toContain(memory.id);
}

describe('MCP over Streamable HTTP (/mcp on the API server)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  const connect = async (key: string) => {
    const client = new Client({ name: 'engram-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    return client;
  };

  it('runs the tools with the official SDK client, scoped by the key', async () => {
    const client = await connect(h.key({ tenant: 'acme' }));
    await scenario(client);
    await client.close();
    const other = await connect(h.key({ tenant: 'globex' }));
    const list = await call(other, 'list_memories', {});
    expect(list.data.items).toEqual([]);
    const search = await call(other, 'search_memories', { query: 'Bob rides a red bicycle', threshold: -1 });
    expect(search.data.hits).toEqual([]);
    await other.close();
  });

  it('read-only and collection-limited keys are enforced on tools', async () => {
    const reader = await connect(h.key({ tenant: 'acme', access: 'read' }));
    const denied = await call(reader, 'add_memory', { text: 'should not be stored' });
    expect((denied.data.error as { code: string }).code).toBe('FORBIDDEN');
    await reader.close();
    const work = await connect(h.key({ tenant: 'acme', collections: ['work'] }));
    const added = await call(work, 'add_memory', { text: 'standup at nine' });
    expect((added.data.memory as { scope: { collection: string } }).scope.collection).toBe('work');
    expect((await call(work, 'list_memories', { collection: 'home' })).isError).toBe(true);
    const listed = await call(work, 'list_memories', {});
    expect((listed.data.items as Array<{ text: string }>).map((m) => m.text)).toEqual(['standup at nine']);
    await work.close();
    expect((await h.engram.list({ scope: { tenant: 'acme' } })).items.map((m) => m.text)).not.toContain(
      'should not be stored',
    );
  });

  it('answers other methods and malformed JSON-RPC with 4xx, never 5xx', async () => {
    const key = h.key({ tenant: 'acme' });
    const headers = { accept: 'application/json, text/event-stream' };
    for (const [method, raw, expected] of [
      ['GET', undefined, 405],
      ['DELETE', undefined, 405],
      ['POST', '{', 400],
      ['POST', '{"jsonrpc":"2.0"}', 400],
      ['POST', '[]', undefined],
    ] as const) {
      const r = await h.request(method, '/mcp', {
        key,
        raw,
        headers: raw ? { ...headers, 'content-type': 'application/json' } : headers,
      });
      if (expected !== undefined) expect(r.status, `${method} ${raw}`).toBe(expected);
      expect(r.status, `${method} ${raw}`).toBeLessThan(500);
    }
  });

  it('rejects connections without a valid key', async () => {
    const client = new Client({ name: 'engram-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`)))).rejects.toThrow();
  });
});

describe('MCP over stdio (spawned server process)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'engram-mcp-stdio-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs the tools with the official SDK client and persists to the data directory', async () => {
    const keys = openDataDirKeyStore({ dataDir });
    const key = keys.create({ tenant: 'acme' }).key;
    keys.close();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', fileURLToPath(new URL('./fixtures/stdio-server.ts', import.meta.url))],
      env: { ...(process.env as Record<string, string>), ENGRAM_TEST_DATA_DIR: dataDir, ENGRAM_TEST_API_KEY: key },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'engram-test', version: '1.0.0' });
    await client.connect(transport);
    await scenario(client);
    await client.close();
    const engram = await Engram.open({
      store: createSqliteStore({ path: join(dataDir, DATABASE_FILE) }),
      embedder: new HashedEmbedder(),
    });
    const stored = await engram.list({ scope: { tenant: 'acme' } });
    expect(stored.items.map((m) => m.text).sort()).toEqual([
      'Bob rides a red bicycle to work',
      'I keep bees on my roof.',
    ]);
    await engram.close();
  });
});
