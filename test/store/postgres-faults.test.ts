/**
 * Transient faults on a real PostgreSQL server: serialization failures (40001) from concurrent
 * SERIALIZABLE writers, real deadlocks (40P01), and connections killed by the server. Retries
 * must make every write land exactly once.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../src/store/memory-store.js';
import { createPostgresStore, runPg, type PostgresStore } from '../../src/store/postgres/index.js';
import { isEngramError } from '../../src/model/errors.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { withVector } from './fixtures/records.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_faults' });
});
afterAll(async () => {
  await cluster?.stop();
});

function record(id: string, tenant = 't1'): MemoryRecord {
  return withVector(new Float32Array([1, 0, 0]), 'm', { id, text: `memory ${id}`, scope: { tenant, user: 'u1' } });
}

describe('serialization conflicts', () => {
  it('concurrent SERIALIZABLE recordUsage on the same rows: every increment lands exactly once', async () => {
    const codes: string[] = [];
    const stores: PostgresStore[] = [];
    for (let i = 0; i < 8; i++) {
      stores.push(
        await createPostgresStore({
          connectionString: cluster.url,
          schema: 'conflicts',
          isolation: 'serializable',
          maxConnections: 2,
          retry: {
            retries: 50,
            baseMs: 2,
            maxMs: 50,
            onRetry: (error) => codes.push(String((error as { code?: unknown }).code)),
          },
        }),
      );
    }
    const ids = Array.from({ length: 5 }, (_, i) => `r${i}`);
    await stores[0]!.insert(ids.map((id) => record(id)));
    const rounds = 15;
    await Promise.all(
      stores.map(async (store, w) => {
        for (let r = 0; r < rounds; r++) {
          // Different orders per worker: row locks are still taken in id order inside the store.
          const order = w % 2 === 0 ? ids : [...ids].reverse();
          await store.recordUsage('t1', order, `2024-01-02T00:00:${String(r).padStart(2, '0')}.000Z`);
        }
      }),
    );
    const after = await stores[0]!.get('t1', ids);
    expect(after.map((m) => m.usage.count)).toEqual(ids.map(() => stores.length * rounds));
    // The conflicts were real, and they were serialization failures.
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.every((c) => c === '40001')).toBe(true);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('concurrent SERIALIZABLE inserts and updates: nothing lost, nothing duplicated', async () => {
    const retried: string[] = [];
    const store = await createPostgresStore({
      connectionString: cluster.url,
      schema: 'conflicts2',
      isolation: 'serializable',
      maxConnections: 16,
      retry: {
        retries: 50,
        baseMs: 2,
        maxMs: 50,
        onRetry: (e) => retried.push(String((e as { code?: unknown }).code)),
      },
    });
    await store.insert([record('shared')]);
    const writers = 16;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        await store.insert([record(`w${w}-a`), record(`w${w}-b`)]);
        // Everybody rewrites the same row: last writer wins, nobody fails.
        const updated = await store.update('t1', 'shared', {
          text: `by ${w}`,
          updatedAt: `2024-02-01T00:00:${String(w).padStart(2, '0')}.000Z`,
        });
        expect(updated?.id).toBe('shared');
      }),
    );
    expect(await store.count({ scope: { tenant: 't1' } })).toBe(1 + writers * 2);
    const page = await store.list({ scope: { tenant: 't1' } }, { limit: 1000 });
    expect(new Set(page.items.map((m) => m.id)).size).toBe(1 + writers * 2);
    const shared = (await store.get('t1', ['shared']))[0];
    expect(shared?.text).toMatch(/^by \d+$/);
    expect(retried.every((c) => c === '40001')).toBe(true);
    await store.close();
  });
});

describe('deadlocks', () => {
  it('two transactions locking rows in opposite order: the deadlock victim is retried and both commit', async () => {
    const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
    pool.on('error', () => undefined);
    await pool.query('CREATE TABLE IF NOT EXISTS accounts (id int PRIMARY KEY, n int NOT NULL)');
    await pool.query('INSERT INTO accounts VALUES (1, 0), (2, 0) ON CONFLICT (id) DO UPDATE SET n = 0');
    const retried: string[] = [];
    let arrived = 0;
    let release: () => void = () => undefined;
    const barrier = new Promise<void>((r) => (release = r));
    const transfer = (first: number, second: number) =>
      runPg(
        pool,
        'transfer',
        async (client) => {
          await client.query('UPDATE accounts SET n = n + 1 WHERE id = $1', [first]);
          // Only the first attempt waits: both hold one lock, then ask for the other's.
          if (arrived < 2) {
            arrived++;
            if (arrived === 2) release();
            await barrier;
          }
          await client.query('UPDATE accounts SET n = n + 1 WHERE id = $1', [second]);
        },
        { transaction: true },
        { retries: 5, baseMs: 5, maxMs: 50, onRetry: (e) => retried.push(String((e as { code?: unknown }).code)) },
      );
    await Promise.all([transfer(1, 2), transfer(2, 1)]);
    const rows = (await pool.query<{ id: number; n: number }>('SELECT id, n FROM accounts ORDER BY id')).rows;
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
    expect(retried).toEqual(['40P01']);
    await pool.end();
  });

  it('a deadlock that keeps happening surfaces as STORE_BUSY after the retries', async () => {
    const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
    pool.on('error', () => undefined);
    let attempts = 0;
    const error = await runPg(
      pool,
      'always-busy',
      async () => {
        attempts++;
        throw Object.assign(new Error('restart transaction: TransactionRetryWithProtoRefreshError'), { code: 'XXXXX' });
      },
      {},
      { retries: 3, baseMs: 1, maxMs: 2 },
    ).catch((e: unknown) => e);
    expect(isEngramError(error, 'STORE_BUSY')).toBe(true);
    expect(attempts).toBe(4);
    await pool.end();
  });
});

describe('lost connections', () => {
  it('connections terminated by the server are replaced; the store keeps working', async () => {
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'lost', maxConnections: 4 });
    await store.insert([record('a')]);
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    for (let round = 0; round < 3; round++) {
      const killed = await admin.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      expect(killed.rows.length).toBeGreaterThan(0);
      // Give the idle clients a moment to notice; either way the next call must succeed.
      await new Promise((r) => setTimeout(r, round === 0 ? 0 : 50));
      expect((await store.get('t1', ['a'])).map((m) => m.id)).toEqual(['a']);
      await store.insert([record(`after-${round}`)]);
    }
    expect(await store.count({ scope: { tenant: 't1' } })).toBe(4);
    await admin.end();
    await store.close();
  });
});

describe('statement timeout', () => {
  it('a write waiting past statementTimeoutMs fails with TIMEOUT (retryable), without a retry; the store keeps working', async () => {
    const store = await createPostgresStore({
      connectionString: cluster.url,
      schema: 'timeouts',
      maxConnections: 2,
      statementTimeoutMs: 300,
    });
    await store.insert([record('held')]);
    const holder = new pg.Client({ connectionString: cluster.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM timeouts.engram_memories WHERE tenant = 't1' AND id = 'held' FOR UPDATE`);
      const started = Date.now();
      const error = await store
        .update('t1', 'held', { text: 'changed', updatedAt: new Date().toISOString() })
        .catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(isEngramError(error, 'TIMEOUT'), String(error)).toBe(true);
      expect((error as { isRetryable: boolean }).isRetryable).toBe(true);
      // One wait of ~300 ms, not one per retry.
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(1_000);
      await holder.query('ROLLBACK');
      expect((await store.get('t1', ['held']))[0]?.text).toBe('memory held');
      await store.update('t1', 'held', { text: 'changed', updatedAt: new Date().toISOString() });
      expect((await store.get('t1', ['held']))[0]?.text).toBe('changed');
    } finally {
      await holder.end();
      await store.close();
    }
  });
});
