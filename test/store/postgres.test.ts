/**
 * The PostgreSQL store on a real server started by the test (test/support/pg-cluster.ts):
 * the shared conformance suite, plus PostgreSQL-specific checks (migrations, full-text syntax
 * safety, connection errors).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEngramError, type EngramError } from '../../src/model/errors.js';
import type { MemoryRecord } from '../../src/store/memory-store.js';
import {
  applyPgMigrations,
  appliedPgMigrations,
  buildTsQuery,
  createPostgresStore,
  PG_MIGRATIONS,
} from '../../src/store/postgres/index.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { pgExtensionInstalled } from '../support/pg-extensions.js';
import { runStoreConformance } from './conformance.js';
import { corruptVectorIn } from './fixtures/pg-corrupt-vector.js';
import { makeRecord } from './fixtures/records.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_conformance' });
});
afterAll(async () => {
  await cluster?.stop();
});

// The suite through pgvector's HNSW index runs in postgres-pgvector.test.ts (skipped there, with
// how to install it, where the server lacks the extension; failing under CI).
runStoreConformance(
  'postgres (real server, app-side vectors)',
  async () => {
    const store = await createPostgresStore({ connectionString: cluster.url, maxConnections: 4, vector: 'app' });
    return { store, cleanup: () => store.close() };
  },
  {
    corruptVector: corruptVectorIn(() => cluster.url, 'public'),
    answersSearchExtras: true,
    childSpec: () => ({ kind: 'postgres' as const, url: cluster.url, schema: 'public', vector: 'app' as const }),
  },
);

describe('postgres specifics', () => {
  it('migrations are versioned, recorded, and safe to run concurrently', async () => {
    const stores = await Promise.all(
      Array.from({ length: 6 }, () =>
        createPostgresStore({ connectionString: cluster.url, schema: 'concurrent_migrate', maxConnections: 2 }),
      ),
    );
    const pool = new pg.Pool({ connectionString: cluster.url });
    expect(await appliedPgMigrations(pool, 'concurrent_migrate')).toEqual(PG_MIGRATIONS.map((m) => m.version));
    const report = await applyPgMigrations(pool, { schema: 'concurrent_migrate' });
    expect(report.applied).toEqual([]);
    expect(report.version).toBe(PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version);
    // The column exists exactly when this server has pgvector installed.
    expect(report.pgvector).toBe(pgExtensionInstalled('vector'));
    expect(await appliedPgMigrations(pool, 'never_migrated')).toEqual([]);
    await Promise.all(stores.map((s) => s.close()));
    await pool.end();
  });

  it('a failing migration is rolled back whole and reported with its version', async () => {
    const pool = new pg.Pool({ connectionString: cluster.url });
    const broken = [
      ...PG_MIGRATIONS,
      { version: 99, name: 'broken', sql: () => 'CREATE TABLE half_done (x int); SELECT no_such_function();' },
    ];
    const error = await applyPgMigrations(pool, { schema: 'broken_migrate', migrations: broken }).catch(
      (e: unknown) => e,
    );
    expect(isEngramError(error, 'MIGRATION_ERROR')).toBe(true);
    expect((error as EngramError).details.version).toBe(99);
    // Nothing of the run survived, not even the earlier steps of the same run.
    expect(await appliedPgMigrations(pool, 'broken_migrate')).toEqual([]);
    const leftover = await pool.query(`SELECT to_regclass('broken_migrate.half_done') AS t`);
    expect(leftover.rows[0].t).toBeNull();
    await pool.end();
  });

  it('tsquery terms are always quoted literals', () => {
    expect(buildTsQuery(['cat', "o'brien", 'back\\slash'])).toBe("'cat' | 'o brien' | 'back slash'");
    expect(buildTsQuery(['a:*', '!x', '(y)', 'p<->q', 'AND', 'NEAR'])).toBe("'a' | 'x' | 'y' | 'p q' | 'and' | 'near'");
    expect(buildTsQuery(['***', '&|!', ''])).toBeNull();
    expect(buildTsQuery(['花生过敏'])).toBe("'花生 生过 过敏'");
    expect(buildTsQuery(['花'])).toBe("'花'");
    expect(buildTsQuery(['Café', 'cafe'])).toBe("'cafe'");
  });

  it('hostile terms never reach tsquery syntax on the server', async () => {
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'tsquery_safety' });
    const rec = (id: string, text: string): MemoryRecord => makeRecord({ id, text, scope: { tenant: 't' } });
    await store.insert([rec('and', 'cats AND dogs near the river'), rec('other', 'nothing relevant here')]);
    const hostile = [
      "'",
      "''",
      '\\',
      "\\'",
      ':*',
      '<->',
      '<2>',
      '!',
      '!!',
      '&',
      '|',
      '(',
      ')',
      '"',
      '*',
      '-',
      "x' | 'y",
      "'); DROP TABLE x; --",
      'a & !b',
      'AND',
      'OR',
      'NOT',
      'NEAR',
    ];
    for (const term of hostile) {
      const found = await store.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: [term], limit: 10 });
      expect(Array.isArray(found), term).toBe(true);
    }
    const and = await store.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: ['AND'], limit: 10 });
    expect(and.map((c) => c.id)).toEqual(['and']);
    const near = await store.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: ['NEAR'], limit: 10 });
    expect(near.map((c) => c.id)).toEqual(['and']);
    // "x' | 'y" is one literal phrase (x followed by y), not two OR-ed words.
    const injected = await store.lexicalSearch({
      filter: { scope: { tenant: 't' } },
      terms: ["cats' | 'nothing"],
      limit: 10,
    });
    expect(injected).toEqual([]);
    await store.close();
  });
});
