import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RemoteEngram, type FetchLike } from '../../src/client/remote-engram.js';
import { EngramError } from '../../src/model/errors.js';
import { startHarness, type Harness } from '../server/server-harness.js';

// Transport failures through real sockets: a slow server, a closed port, a proxy answering
// non-JSON errors. Each must surface as an EngramError with a stable code.
let h: Harness;
let odd: Server;
let oddUrl: string;
beforeAll(async () => {
  h = await startHarness();
  odd = createServer((req, res) => {
    if (req.url?.startsWith('/slow')) return void setTimeout(() => res.end('{}'), 2_000);
    if (req.url?.includes('bad-gateway')) {
      res.writeHead(502, { 'content-type': 'text/html' });
      return void res.end('<html>bad gateway</html>');
    }
    if (req.url?.includes('alien-code')) {
      res.writeHead(418, { 'content-type': 'application/json' });
      return void res.end('{"error":{"code":"TEAPOT","message":"short and stout"}}');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('not json');
  });
  await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
  oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => odd?.close(resolve));
});

async function codeOf(promise: Promise<unknown>): Promise<EngramError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(EngramError);
    return error as EngramError;
  }
  throw new Error('expected an error');
}

const scope = { tenant: 'acme' };

it('a server slower than timeoutMs is TIMEOUT (retryable)', async () => {
  const client = new RemoteEngram({ url: `${oddUrl}/slow`, apiKey: 'k', timeoutMs: 200 });
  const error = await codeOf(client.list({ scope }));
  expect(error.code).toBe('TIMEOUT');
  expect(error.isRetryable).toBe(true);
});

it('a caller abort signal is honoured', async () => {
  const client = new RemoteEngram({ url: `${oddUrl}/slow`, apiKey: 'k' });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  expect((await codeOf(client.recall('q', { scope, signal: controller.signal }))).code).toBe('TIMEOUT');
});

it('an unreachable server is a retryable STORE_ERROR', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await codeOf(new RemoteEngram({ url: `http://127.0.0.1:${port}`, apiKey: 'k' }).get('x', { scope }));
  expect(error.code).toBe('STORE_ERROR');
  expect(error.isRetryable).toBe(true);
});

it('non-JSON and unknown-code errors map by status; invalid JSON success bodies are INTERNAL', async () => {
  const client = new RemoteEngram({ url: `${oddUrl}/bad-gateway`, apiKey: 'k' });
  const gateway = await codeOf(client.stats({ scope }));
  expect(gateway.code).toBe('EMBEDDER_ERROR');
  expect(gateway.isRetryable).toBe(true);
  expect((await codeOf(new RemoteEngram({ url: `${oddUrl}/alien-code`, apiKey: 'k' }).stats({ scope }))).code).toBe('INVALID_INPUT');
  expect((await codeOf(new RemoteEngram({ url: oddUrl, apiKey: 'k' }).stats({ scope }))).code).toBe('INTERNAL');
});

it('server errors keep their code, message and details; the key goes in the Authorization header only', async () => {
  const key = h.key({ tenant: 'acme' });
  const seen: Array<{ url: string; headers: Record<string, string> }> = [];
  const recording: FetchLike = (input, init) => {
    seen.push({ url: input, headers: init.headers as Record<string, string> });
    return fetch(input, init);
  };
  const client = new RemoteEngram({ url: `${h.url}/`, apiKey: key, fetch: recording, headers: { 'x-request-id': 'client-1' } });
  const error = await codeOf(client.add({ text: 'x'.repeat(40_000) }, { scope }));
  expect(error.code).toBe('TEXT_TOO_LONG');
  expect(error.details).toMatchObject({ field: 'memories[0].text', limit: 32_768 });
  expect((await codeOf(client.add({ text: 'ok' }, { scope: { tenant: 'globex' } }))).code).toBe('FORBIDDEN');
  expect((await codeOf(new RemoteEngram({ url: h.url, apiKey: 'egk_nope' }).list({ scope }))).code).toBe('UNAUTHORIZED');
  expect((await codeOf(new RemoteEngram({ url: h.url, apiKey: () => undefined }).list({ scope }))).code).toBe('UNAUTHORIZED');
  expect(seen[0]?.url).toBe(`${h.url}/v1/memories`);
  expect(seen[0]?.headers).toMatchObject({ authorization: `Bearer ${key}`, 'x-request-id': 'client-1', 'content-type': 'application/json' });
  expect(seen.every((s) => !s.url.includes(key))).toBe(true);
  expect(() => new RemoteEngram({ url: 'ftp://x', apiKey: 'k' })).toThrow(EngramError);
});
