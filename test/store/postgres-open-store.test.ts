/**
 * Store selection (`--store`, ENGRAM_STORE, default path) and fast, clear failures for bad
 * PostgreSQL URLs and unreachable or silent servers.
 */
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngramError } from '../../src/model/errors.js';
import { openStore, resolveStoreSpec } from '../../src/store/open-store.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { makeRecord } from './fixtures/records.js';

let cluster: PgCluster;
let dir: string;
beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_open' });
  dir = mkdtempSync(join(tmpdir(), 'engram-open-'));
});
afterAll(async () => {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<EngramError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngramError);
  return error as EngramError;
}

describe('resolveStoreSpec', () => {
  it('picks the backend from the spec, then ENGRAM_STORE, then the default path', () => {
    expect(resolveStoreSpec('postgres://u@h/db', { env: {} })).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://u@h/db',
    });
    expect(resolveStoreSpec('postgresql://u@h:6543/db', { env: {} }).kind).toBe('postgres');
    expect(resolveStoreSpec('./data/x.db', { env: {} })).toEqual({ kind: 'sqlite', path: './data/x.db' });
    expect(resolveStoreSpec(':memory:', { env: {} })).toEqual({ kind: 'sqlite', path: ':memory:' });
    expect(resolveStoreSpec('sqlite:/tmp/a.db', { env: {} })).toEqual({ kind: 'sqlite', path: '/tmp/a.db' });
    expect(resolveStoreSpec('pglite:memory', { env: {} })).toEqual({ kind: 'pglite', dataDir: 'memory://' });
    expect(resolveStoreSpec(undefined, { env: { ENGRAM_STORE: 'postgres://e/db' } })).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://e/db',
    });
    // An explicit spec wins over the environment.
    expect(resolveStoreSpec('./x.db', { env: { ENGRAM_STORE: 'postgres://e/db' } }).kind).toBe('sqlite');
    expect(resolveStoreSpec(undefined, { env: {} })).toEqual({ kind: 'sqlite', path: './.engram/engram.db' });
    expect(resolveStoreSpec('', { env: {} })).toEqual({ kind: 'sqlite', path: './.engram/engram.db' });
  });

  it('rejects unknown schemes with CONFIG_ERROR', () => {
    expect(() => resolveStoreSpec('mysql://u@h/db', { env: {} })).toThrow(EngramError);
    try {
      resolveStoreSpec('mongodb://h', { env: {} });
    } catch (error) {
      expect((error as EngramError).code).toBe('CONFIG_ERROR');
    }
  });
});

describe('openStore', () => {
  it('opens PostgreSQL from ENGRAM_STORE and it works', async () => {
    const store = await openStore(undefined, { env: { ENGRAM_STORE: cluster.url } });
    expect(store.kind).toBe('postgres');
    await store.insert([makeRecord({ id: 'one', scope: { tenant: 'open' } })]);
    expect((await store.get('open', ['one'])).map((m) => m.id)).toEqual(['one']);
    await store.close();
  });

  it('opens SQLite at a path, creating its folder', async () => {
    const path = join(dir, 'nested', 'deeper', 'engram.db');
    const store = await openStore(path, { env: {} });
    expect(store.kind).toBe('sqlite');
    await store.migrate();
    expect(existsSync(path)).toBe(true);
    await store.close();
  });

  it('a malformed PostgreSQL URL fails with CONFIG_ERROR before any network', async () => {
    const error = await failure(openStore('postgres://user@host:notaport/db', { env: {} }));
    expect(error.code).toBe('CONFIG_ERROR');
  });

  it('a refused connection fails fast with STORE_UNAVAILABLE (retryable) and the errno', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const started = Date.now();
    const error = await failure(openStore(`postgres://u@127.0.0.1:${port}/db`, { env: {} }));
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.isRetryable).toBe(true);
    expect(error.details.pgCode).toBe('ECONNREFUSED');
    expect(error.message).toMatch(/connection failed/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a server that accepts but never answers fails with TIMEOUT after connectTimeoutMs, not a hang', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    const started = Date.now();
    const error = await failure(
      openStore(`postgres://u@127.0.0.1:${port}/db`, { env: {}, postgres: { connectTimeoutMs: 400 } }),
    );
    const elapsed = Date.now() - started;
    expect(error.code).toBe('TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(3_000);
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it('a missing database fails with STORE_ERROR carrying SQLSTATE 3D000', async () => {
    const url = cluster.url.replace(/\/[^/]+$/, '/no_such_db');
    const error = await failure(openStore(url, { env: {} }));
    expect(error.code).toBe('STORE_ERROR');
    expect(error.details.pgCode).toBe('3D000');
  });
});
