/**
 * Never leaks: values the policy masks are planted through every write path — the library (add,
 * addMany, update), REST (create, batch, patch, a refused write), MCP add_memory, the CLI (add,
 * import), wrapper capture of an OpenAI SDK call — into one SQLite data directory, with a real
 * HTTP embedder and a real OpenAI-compatible LLM endpoint on 127.0.0.1. Then every planted value
 * is searched for, byte for byte, in the database files (with WAL), the server's log lines, the
 * metrics, the CLI output and errors, every request the embedder and the LLM received after the
 * caller's own turn, the history, and an export.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { openKeyStore, type KeyStore } from '../../src/auth/key-store.js';
import { main } from '../../src/cli/main.js';
import { resolveEmbedder } from '../../src/embed/index.js';
import { Engram } from '../../src/engram.js';
import { wrapOpenAI } from '../../src/inject/wrappers/openai.js';
import { DATABASE_FILE } from '../../src/open-default-engram.js';
import { createServerLogger } from '../../src/server/server-logger.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { exportDeletedHistory, exportTenant } from '../../src/store/transfer.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';
import { body, luhnNumber } from './support/tokens.js';

/** One planted value per entry point and category; each must be found nowhere. */
const PLANTED = {
  libOpenai: `sk-proj-${body(64, 91, 'ABCDEFGHIJabcdefghij0123456789_-')}`,
  libCard: luhnNumber('4', 16, 92),
  libUpdate: `ghp_${body(36, 93)}`,
  restAws: `AKIA${body(16, 94, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`,
  restBatchCard: luhnNumber('51', 16, 95),
  restPatchStripe: `sk_live_${body(24, 96)}`,
  restRefused: luhnNumber('4', 16, 97),
  mcpSlack: `xoxb-123456789012-1234567890123-${body(24, 98)}`,
  cliAdd: `sk-ant-api03-${body(93, 99, 'ABCDEFGHIJabcdefghij0123456789_-')}AA`,
  cliImport: luhnNumber('4', 16, 100),
  captureKey: `sk-proj-${body(64, 101, 'ABCDEFGHIJabcdefghij0123456789_-')}`,
  capturePassword: 'Tr0ub4dor&3xyz',
};
const DE_IBAN = 'DE89370400440532013000';

const scope = { tenant: 'acme', user: 'alice', session: 's1' };
let dir: string;
let server: LocalHttpServer;
let api: RunningServer;
let engram: Engram;
let keys: KeyStore;
let key: string;
const logLines: string[] = [];
const cliOutput: string[] = [];
let llmCallsFromCapture = 0;

const hashed = new HashedEmbedder({ dim: 32, model: 'leak-model' });
async function reply(request: { url: string; body: unknown }): Promise<{ json: unknown }> {
  if (request.url.endsWith('/embeddings')) {
    const vectors = await hashed.embed((request.body as { input: string[] }).input);
    return {
      json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) },
    };
  }
  const message = { role: 'assistant', content: 'Noted.' };
  return {
    json: {
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-x',
      choices: [{ index: 0, message, finish_reason: 'stop' }],
    },
  };
}

async function cli(...args: string[]): Promise<number> {
  const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void cliOutput.push(String(line)));
  try {
    const store = join(dir, DATABASE_FILE);
    return await main(
      [
        'node',
        'engram',
        '--store',
        store,
        '--tenant',
        'acme',
        '--user',
        'alice',
        '--embedder',
        'http:leak-model',
        ...args,
      ],
      {
        error: (t) => cliOutput.push(t),
      },
    );
  } finally {
    log.mockRestore();
  }
}

async function rest(method: string, path: string, payload: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-leak-'));
  server = await startLocalServer(reply);
  process.env['ENGRAM_EMBEDDER_BASE_URL'] = server.url;
  engram = await Engram.open({
    store: createSqliteStore({ path: join(dir, DATABASE_FILE) }),
    embedder: await resolveEmbedder('http:leak-model'),
  });
  keys = openKeyStore({ path: join(dir, 'keys.sqlite') });
  key = keys.create({ tenant: 'acme' }).key;
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createServerLogger({ destination, level: 'trace' });
  api = await startServer({ dataDir: dir, port: 0, engram, keys, logger, closeEngram: true });

  // The library.
  const [a] = await engram.addMany(
    [{ text: `my OpenAI key is ${PLANTED.libOpenai}`, metadata: { billing: { card: PLANTED.libCard } } }],
    { scope },
  );
  await engram.update(a?.id as string, { summary: `rotated to ${PLANTED.libUpdate}`, tags: [DE_IBAN] }, { scope });
  // REST: create, batch, patch and a write the call's policy refuses.
  const created = await rest('POST', '/v1/memories', {
    scope: { user: 'alice' },
    memory: { text: `aws key ${PLANTED.restAws}`, sources: [{ type: 'chat', content: PLANTED.restAws }] },
  });
  expect(created.status).toBe(201);
  const id = (JSON.parse(created.text) as { memory: { id: string } }).memory.id;
  const batch = await rest('POST', '/v1/memories/batch', {
    scope: { user: 'alice' },
    memories: [{ text: `card on file ${PLANTED.restBatchCard}` }],
  });
  expect(batch.status).toBe(201);
  expect(
    (await rest('PATCH', `/v1/memories/${id}`, { scope: { user: 'alice' }, patch: { key: PLANTED.restPatchStripe } }))
      .status,
  ).toBe(200);
  const refused = await rest('POST', '/v1/memories', {
    scope: { user: 'alice' },
    memory: { text: `card ${PLANTED.restRefused}` },
    safety: { actions: { card: 'reject' } },
  });
  expect(refused.status).toBe(422);
  expect(refused.text).toContain('SENSITIVE_DATA_REJECTED');
  logLines.push(refused.text, created.text, batch.text);
  // MCP.
  const client = new Client({ name: 'leak-test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers } }));
  const added = (await client.callTool({
    name: 'add_memory',
    arguments: { text: `slack bot ${PLANTED.mcpSlack}`, user: 'alice' },
  })) as {
    content: Array<{ text: string }>;
  };
  logLines.push(added.content[0]?.text ?? '');
  await client.close();
  // The CLI.
  expect(await cli('add', `anthropic key ${PLANTED.cliAdd}`)).toBe(0);
  const file = join(dir, 'import.jsonl');
  writeFileSync(file, `${JSON.stringify({ text: `old card ${PLANTED.cliImport}` })}\n`);
  expect(await cli('import', '-q', file)).toBe(0);
  // Wrapper capture of an OpenAI SDK call: the user's own turn goes to the LLM (it is theirs), but
  // Engram stores it masked; the next call's injected context holds only masks.
  const openai = wrapOpenAI(new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }), {
    recaller: engram,
    scope,
    capture: { writer: engram },
    budgetMs: 5000,
  });
  await openai.chat.completions.create({
    model: 'gpt-x',
    messages: [
      { role: 'user', content: `Remember my key ${PLANTED.captureKey}, and password: ${PLANTED.capturePassword}` },
    ],
  });
  llmCallsFromCapture = server.requests.length;
  await vi.waitFor(async () => {
    const page = await engram.list({ scope, limit: 100 });
    expect(page.items.some((m) => m.text.includes('Remember my key'))).toBe(true);
  });
  await openai.chat.completions.create({
    model: 'gpt-x',
    messages: [{ role: 'user', content: 'What keys and cards did I give you?' }],
  });
}, 120_000);

afterAll(async () => {
  delete process.env['ENGRAM_EMBEDDER_BASE_URL'];
  await api?.close();
  keys?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectNowhere(haystack: string, where: string): void {
  for (const [name, value] of Object.entries(PLANTED))
    expect(haystack.includes(value), `${name} in ${where}`).toBe(false);
}

describe('planted values never leak', () => {
  it('were written: the store has a memory from every entry point, masked', async () => {
    const page = await engram.list({ scope: { tenant: 'acme' }, limit: 100 });
    const texts = page.items.map((m) => m.text).join('\n');
    for (const mask of [
      '[secret:openai]',
      '[secret:aws-access-key]',
      '[card Mastercard',
      '[secret:slack]',
      '[secret:anthropic]',
      'old card [card Visa',
    ]) {
      expect(texts).toContain(mask);
    }
    expect(texts).toContain('Remember my key [secret:openai]');
  });

  it('not in the database files (with WAL and the other SQLite files)', async () => {
    const files = readdirSync(dir).filter(
      (f) => f.endsWith('.db') || f.includes('.db-') || f.endsWith('.sqlite') || f.includes('.sqlite-'),
    );
    expect(files).toContain(DATABASE_FILE);
    for (const f of files) expectNowhere(readFileSync(join(dir, f)).toString('latin1'), f);
  });

  it('not in the log lines, the metrics, the CLI output or any error', async () => {
    expect(logLines.length).toBeGreaterThan(5);
    expectNowhere(logLines.join('\n'), 'logs');
    const metrics = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
    expectNowhere(await metrics.text(), 'metrics');
    expect(cliOutput.length).toBeGreaterThan(0);
    expectNowhere(cliOutput.join('\n'), 'CLI output');
  });

  it('not in any embedder request, nor in what Engram added to an LLM request', async () => {
    const embeddings = server.requests.filter((r) => r.url.endsWith('/embeddings'));
    expect(embeddings.length).toBeGreaterThan(5);
    expectNowhere(JSON.stringify(embeddings.map((r) => r.body)), 'embedder requests');
    const chats = server.requests.filter((r) => r.url.endsWith('/chat/completions'));
    expect(chats).toHaveLength(2);
    // The first call carries the user's own turn (theirs to send); everything after it is Engram's doing.
    const later = server.requests.slice(llmCallsFromCapture).filter((r) => r.url.endsWith('/chat/completions'));
    expect(later).toHaveLength(1);
    const sent = JSON.stringify(later[0]?.body);
    expect(sent).toContain('[secret:');
    expectNowhere(sent, 'the LLM request after capture');
  });

  it('not in the history nor in an export', async () => {
    const store = createSqliteStore({ path: join(dir, DATABASE_FILE) });
    const lines: string[] = [];
    for await (const record of exportTenant(store, 'acme')) lines.push(JSON.stringify(record));
    for await (const line of exportDeletedHistory(store, 'acme')) lines.push(JSON.stringify(line));
    const all = await store.list(
      { scope: { tenant: 'acme' }, statuses: ['activated', 'archived', 'deleted'] },
      { limit: 100 },
    );
    const history = await store.formation?.history.forMemories(
      'acme',
      all.items.map((m) => m.id),
    );
    await store.close();
    expect(history?.length).toBeGreaterThan(all.items.length);
    expectNowhere(JSON.stringify(history), 'history');
    expect(lines.length).toBeGreaterThanOrEqual(all.items.length);
    expectNowhere(lines.join('\n'), 'export');
  });
});
