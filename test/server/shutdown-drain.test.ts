import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openKeyStore } from '../../src/auth/key-store.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { Engram } from '../../src/engram.js';
import { startServer } from '../../src/server/start-server.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'engram-drain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('close() refuses new connections, finishes the request in flight, then closes the store', async () => {
  const inner = new HashedEmbedder();
  let slow = false;
  const embedder: Embedder = {
    model: inner.model,
    dim: inner.dim,
    async embed(texts) {
      if (slow) await new Promise((resolve) => setTimeout(resolve, 600));
      return inner.embed(texts);
    },
  };
  const path = join(dir, 'engram.sqlite');
  const engram = await Engram.open({ store: createSqliteStore({ path }), embedder });
  const keys = openKeyStore({ path: ':memory:' });
  const key = keys.create({ tenant: 'acme' }).key;
  const server = await startServer({ dataDir: dir, port: 0, engram, keys, closeEngram: true });
  const post = (id: string) =>
    fetch(`${server.url}/v1/memories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ memory: { id, text: `written while shutting down ${id}` } }),
    });
  expect((await post('before')).status).toBe(201);

  slow = true;
  const inFlight = post('in-flight');
  await new Promise((resolve) => setTimeout(resolve, 150));
  const closing = server.close();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await expect(post('after')).rejects.toThrow();

  // A dropped request would reject here; it is answered although close() started before it ended.
  const response = await inFlight;
  expect(response.status).toBe(201);
  await closing;
  await expect(engram.add({ text: 'late' }, { scope: { tenant: 'acme' } })).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  keys.close();

  const reopened = await Engram.open({ store: createSqliteStore({ path }), embedder: inner });
  const ids = (await reopened.list({ scope: { tenant: 'acme' } })).items.map((m) => m.id).sort();
  await reopened.close();
  expect(ids).toEqual(['before', 'in-flight']);
});

it('close() waits for a handler whose client went away before it closes the store', async () => {
  const inner = new HashedEmbedder();
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  const inEmbed = new Promise<void>((resolve) => (entered = resolve));
  const embedder: Embedder = {
    model: inner.model,
    dim: inner.dim,
    async embed(texts) {
      if (texts.some((t) => t.includes('abandoned'))) {
        entered();
        await new Promise<void>((resolve) => (release = resolve));
      }
      return inner.embed(texts);
    },
  };
  const path = join(dir, 'abandoned.sqlite');
  const engram = await Engram.open({ store: createSqliteStore({ path }), embedder });
  const keys = openKeyStore({ path: ':memory:' });
  const key = keys.create({ tenant: 'acme' }).key;
  const server = await startServer({ dataDir: dir, port: 0, engram, keys, closeEngram: true });
  const client = new AbortController();
  const abandoned = fetch(`${server.url}/v1/memories`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ memory: { id: 'abandoned', text: 'abandoned by its client' } }),
    signal: client.signal,
  });
  await inEmbed;
  client.abort();
  await expect(abandoned).rejects.toThrow();

  let closed = false;
  const closing = server.close().then(() => (closed = true));
  // Its connection is gone, so the HTTP server stops at once; the store must stay open for the handler.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(closed).toBe(false);
  release();
  await closing;
  keys.close();

  const reopened = await Engram.open({ store: createSqliteStore({ path }), embedder: inner });
  const ids = (await reopened.list({ scope: { tenant: 'acme' } })).items.map((m) => m.id);
  await reopened.close();
  expect(ids).toEqual(['abandoned']);
});
