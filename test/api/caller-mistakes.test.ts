/**
 * Every caller mistake has one code wherever it enters: the library (`Engram`), REST (a real
 * server on 127.0.0.1, with the HTTP status of the code), MCP (the official SDK client against
 * `/mcp`) and the CLI (`main`, the function `bin/engram` runs, exit code 2 and `error CODE:` on
 * stderr). Each row is one mistake sent through every entry point that can express it; where
 * one cannot, the row says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { Engram } from '../../src/engram.js';
import { ERROR_HTTP_STATUS, isEngramError } from '../../src/model/errors.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';
import { startHarness, type Harness } from '../server/server-harness.js';
import { DIM, KNOWN_ID, LEGACY_USER, MISTAKES, type NotHere } from './caller-mistakes.js';

let dir: string;
let library: Engram;
let h: Harness;
let key: string;
let mcp: Client;
let embeddings: LocalHttpServer;
const savedBaseUrl = process.env['ENGRAM_EMBEDDER_BASE_URL'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-mistakes-'));
  library = await Engram.open({ store: createSqliteStore({ path: ':memory:' }), embedder: new HashedEmbedder() });
  h = await startHarness();
  key = h.key({ tenant: 'acme' });
  for (const engram of [library, h.engram]) {
    expect(engram.embedder.dim).toBe(DIM);
    await engram.add({ id: KNOWN_ID, text: 'Alice drinks green tea' }, { scope: { tenant: 'acme' } });
    // A partition embedded with another model (before a switch of embedder, say).
    const legacy = new HashedEmbedder({ dim: DIM, model: 'legacy-model' });
    const [vector] = await legacy.embed(['Bob likes coffee']);
    await engram.store.insert([
      {
        id: 'legacy-1',
        text: 'Bob likes coffee',
        type: 'LongTermMemory',
        key: null,
        tags: [],
        level: null,
        summary: null,
        background: null,
        sources: [],
        scope: { tenant: 'acme', user: LEGACY_USER },
        metadata: {},
        statedAt: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        status: 'activated',
        embedding: { model: legacy.model, dim: DIM },
        vector: vector as Float32Array,
      },
    ]);
  }
  mcp = new Client({ name: 'engram-mistakes', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  // The CLI embeds through a real OpenAI-compatible endpoint (ENGRAM_EMBEDDER_BASE_URL).
  const embedder = new HashedEmbedder({ model: 'model-a' });
  embeddings = await startLocalServer(async (request) => {
    const vectors = await embedder.embed((request.body as { input: string[] }).input);
    return {
      json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) },
    };
  });
  process.env['ENGRAM_EMBEDDER_BASE_URL'] = embeddings.url;
}, 60_000);

afterAll(async () => {
  if (savedBaseUrl === undefined) delete process.env['ENGRAM_EMBEDDER_BASE_URL'];
  else process.env['ENGRAM_EMBEDDER_BASE_URL'] = savedBaseUrl;
  await mcp?.close();
  await h?.close();
  await library?.close();
  await embeddings?.close();
  rmSync(dir, { recursive: true, force: true });
});

const here = <T>(entry: T | NotHere): entry is T => !(typeof entry === 'object' && entry !== null && 'none' in entry);

describe.each(MISTAKES)('$name → $code', (mistake) => {
  it('library', async () => {
    const error = await mistake.library(library, { tenant: 'acme' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isEngramError(error) ? error.code : error).toBe(mistake.code);
  });

  it.runIf(here(mistake.rest))('REST (status and code)', async () => {
    const [method, path, body] = mistake.rest as [string, string, unknown];
    const response = await h.request(method, path, { key, body });
    expect(response.json?.error?.code).toBe(mistake.code);
    expect(response.status).toBe(ERROR_HTTP_STATUS[mistake.code]);
  });

  it.runIf(here(mistake.mcp))('MCP', async () => {
    const [tool, args] = mistake.mcp as [string, Record<string, unknown>];
    const result = (await mcp.callTool({ name: tool, arguments: args })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(result.isError).toBe(true);
    const envelope = JSON.parse(result.content[0]?.text ?? 'null') as { error?: { code: string } } | null;
    expect(envelope?.error?.code).toBe(mistake.code);
  });

  it.runIf(here(mistake.cli))('CLI', async () => {
    const lines: string[] = [];
    const store = join(dir, 'cli.db');
    const code = await main(
      ['node', 'engram', '--store', store, '--embedder', 'http:model-a', ...(mistake.cli as string[])],
      {
        error: (text) => lines.push(text),
      },
    );
    expect(lines[0]?.split(':')[0]).toBe(`error ${mistake.code}`);
    expect(code).toBe(2);
  });
});
