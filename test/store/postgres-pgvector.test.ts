/**
 * pgvector on a real PostgreSQL server started by the test: the store conformance suite through
 * the HNSW path, and the pgvector modules (src/store/postgres/pgvector-*.ts) — what `migrate`
 * creates and reports, the exact / HNSW cut-over, filters inside the index scan (iterative
 * scans), halfvec above 2,000 dimensions, rebuilding an invalid index. Skipped with an install
 * hint where pgvector is missing; under CI a missing pgvector fails.
 */
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { clientQueries } from '../../src/store/postgres/pg-query-runner.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DenseCandidate, MemoryRecord } from '../../src/store/memory-store.js';
import { migrateStore } from '../../src/store/migrate-store.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { pgNames } from '../../src/store/postgres/pg-names.js';
import {
  FETCH_MARGIN,
  pgvectorDenseSearch,
  type PgVectorSearchRequest,
} from '../../src/store/postgres/pgvector-dense.js';
import { ScopeSizeCache } from '../../src/store/postgres/scope-size-cache.js';
import {
  denseIndexName,
  detectPgVector,
  ensureDenseIndex,
  ensurePgVectorExtension,
  migrateDenseIndexes,
  type PgVectorCapabilities,
} from '../../src/store/postgres/pgvector-indexes.js';
import type { SqlQueries } from '../../src/store/sql/query-runner.js';
import { unitDot, unitVector } from '../../src/vector/unit-cosine.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { describeWithPgExtensions } from '../support/pg-extensions.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/pg-migrations.js';
import { runStoreConformance } from './conformance.js';
import { corruptVectorIn } from './fixtures/pg-corrupt-vector.js';
import { makeRecord, randomVector, seededRandom } from './fixtures/records.js';

let cluster: PgCluster;
const LATEST = Math.max(...PG_MIGRATIONS.map((m) => m.version));
let pool: pg.Pool;

/** Runs `work` on one connection inside BEGIN … ROLLBACK (the search uses SET LOCAL). */
async function inTransaction<T>(work: (runner: SqlQueries & { log: string[] }) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const log: string[] = [];
  const base = clientQueries(client);
  const runner = {
    log,
    all: <R>(sql: string, params: readonly unknown[]) => {
      log.push(sql);
      return base.all<R>(sql, params);
    },
    run: (sql: string, params: readonly unknown[]) => {
      log.push(sql);
      return base.run(sql, params);
    },
  };
  try {
    await client.query('BEGIN');
    return await work(runner);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

function brute(rows: Array<{ id: string; v: Float32Array }>, q: Float32Array, k: number): DenseCandidate[] {
  const u = unitVector(q)!;
  return rows
    .map((r) => ({ id: r.id, cosine: unitDot(unitVector(r.v)!, u) }))
    .sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

function vectorRecords(
  rows: Array<{ id: string; v: Float32Array; user: string }>,
  tenant: string,
  model: string,
): MemoryRecord[] {
  return rows.map((r) =>
    makeRecord({ id: r.id, scope: { tenant, user: r.user }, embedding: { model, dim: r.v.length }, vector: r.v }),
  );
}

describeWithPgExtensions('postgres + pgvector (real server)', ['vector'], () => {
  beforeAll(async () => {
    cluster = await startPgCluster({ database: 'engram_pgvector' });
    pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
    pool.on('error', () => undefined); // idle clients when the server stops
  });
  afterAll(async () => {
    await pool?.end();
    await cluster?.stop();
  });

  // exactSearchMaxRows 5: every dense test with more than 5 rows goes through the HNSW index.
  runStoreConformance(
    'postgres + pgvector (HNSW above 5 rows)',
    async () => {
      const store = await createPostgresStore({
        connectionString: cluster.url,
        schema: 'conformance',
        vector: 'pgvector',
        exactSearchMaxRows: 5,
        maxConnections: 4,
      });
      return { store, cleanup: () => store.close() };
    },
    {
      corruptVector: corruptVectorIn(() => cluster.url, 'conformance'),
      answersSearchExtras: true,
      childSpec: () => ({
        kind: 'postgres' as const,
        url: cluster.url,
        schema: 'conformance',
        vector: 'pgvector' as const,
      }),
    },
  );

  it('migrate creates the extension and one HNSW index per (model, dimension), and says what it did', async () => {
    const url = await cluster.createDatabase('fresh_migrate');
    const fresh = new pg.Pool({ connectionString: url, max: 3 });
    const names = pgNames('public');
    const client = await fresh.connect();
    try {
      await client.query('BEGIN');
      const before = await migrateDenseIndexes(clientQueries(client), names);
      await client.query('COMMIT');
      expect(before.extension.state).toBe('created');
      expect(before.extension.version).toMatch(/^0\.[89]|^[1-9]/);
      expect(before.column).toBe(false); // no Engram table yet

      const store = await createPostgresStore({ pool: fresh, vector: 'pgvector' });
      const random = seededRandom(3);
      const spaces = [
        { model: 'alpha', dim: 8 },
        { model: "beta's", dim: 8 },
        { model: 'alpha', dim: 12 },
      ];
      for (const s of spaces) {
        const rows = Array.from({ length: 20 }, (_, i) => ({
          id: `${s.model}-${s.dim}-${i}`,
          v: randomVector(random, s.dim),
          user: 'u',
        }));
        await store.insert(vectorRecords(rows, 'acme', s.model));
      }
      const defs = await client.query<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexdef LIKE '%hnsw%' ORDER BY 1`,
      );
      expect(defs.rows.map((r) => r.indexname)).toEqual(spaces.map((s) => denseIndexName(names.prefix, s)).sort());
      const beta = defs.rows.find((r) => r.indexname === denseIndexName(names.prefix, spaces[1]!))!.indexdef;
      expect(beta).toContain('USING hnsw (((embedding)::vector(8)) vector_cosine_ops)');
      expect(beta).toContain("embed_model = 'beta''s'::text");
      expect(beta).toContain('embed_dim = 8');

      await client.query('BEGIN');
      const again = await migrateDenseIndexes(clientQueries(client), names);
      await client.query('COMMIT');
      expect(again.extension.state).toBe('present');
      expect(again.column).toBe(true);
      expect(again.indexes.map((i) => [i.model, i.dim, i.state])).toEqual([
        ['alpha', 8, 'present'],
        ['alpha', 12, 'present'],
        ["beta's", 8, 'present'],
      ]);
      await store.close();
      // What `engram migrate` prints for this database.
      const summary = await migrateStore(url);
      expect(summary.lines.slice(0, 3)).toEqual([
        `postgres schema is up to date (version ${LATEST})`,
        expect.stringMatching(/^pgvector: pgvector 0\.\d+\.\d+ is installed$/),
        'dense search: pgvector HNSW per embedding space, exact scan for small scopes',
      ]);
      expect(summary.lines.slice(3)).toEqual([
        // In (model, dimension) order: alpha/8, alpha/12, beta's/8.
        ...[spaces[0]!, spaces[2]!, spaces[1]!].map((s) => `  ${denseIndexName(names.prefix, s)} exists`),
        'topology: one server',
      ]);
    } finally {
      client.release();
      await fresh.end();
    }
  });

  it('migrate as a role that may not create the extension says so, runs without it, and creates nothing', async () => {
    await pool.query(`DO $$ BEGIN CREATE ROLE engram_app LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await pool.query('CREATE DATABASE no_privilege OWNER engram_app');
    const url = cluster.url.replace('postgres@', 'engram_app@').replace(/\/[^/]+$/, '/no_privilege');
    const asApp = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const report = await ensurePgVectorExtension(clientQueries(asApp));
      expect(report.state).toBe('no-privilege');
      const summary = await migrateStore(url);
      expect(summary.lines).toEqual([
        `postgres: applied migrations ${PG_MIGRATIONS.map((m) => m.version).join(', ')} (schema version ${LATEST})`,
        expect.stringMatching(
          /^pgvector: .*this role may not create it \(needs a superuser\).*dense search scores rows in the application$/,
        ),
        'dense search: exact, every matching row scored in the application',
        'topology: one server',
      ]);
      const ext = await asApp.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
      expect(ext.rows).toHaveLength(0);
    } finally {
      await asApp.end();
    }
  });

  it('the pgvector column holds every float32 exactly as given', async () => {
    // Values whose shortest float32 spelling needs all 9 digits, tiny and huge ones, zero.
    const random = seededRandom(9);
    const v = Float32Array.from({ length: 64 }, (_, i) => (i % 8 === 0 ? 0 : (random() - 0.5) * 10 ** ((i % 13) - 6)));
    v[1] = 0.1;
    v[2] = 1 / 3;
    v[3] = -3.4028234663852886e38;
    v[4] = 1.401298464324817e-45;
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'exact_literal', vector: 'pgvector' });
    try {
      await store.insert(vectorRecords([{ id: 'x', v, user: 'u' }], 'acme', 'm'));
      const r = await pool.query<{ e: number[] }>(`SELECT embedding::real[] AS e FROM exact_literal.engram_memories WHERE id = 'x'`);
      expect(Float32Array.from(r.rows[0]!.e.map(Number))).toEqual(v);
    } finally {
      await store.close();
    }
  });

  it('a server without pgvector is reported as unavailable, with how to install it', async () => {
    const db = await PGlite.create('memory://'); // PGlite without its vector extension loaded
    const lite = new pg.Pool(createPgConfig(db) as unknown as pg.PoolConfig);
    lite.options.max = 1;
    try {
      const report = await ensurePgVectorExtension(clientQueries(lite));
      expect(report.state).toBe('unavailable');
      expect(report.message).toMatch(/pgvector/);
      expect(report.message).toMatch(/install/);
    } finally {
      await lite.end();
      await db.close();
    }
  });

  describe('dense search', () => {
    const dim = 16;
    const random = seededRandom(17);
    // One big tenant: a crowd of 6,000 rows and a small user of 300 (5%), interleaved.
    const rows = Array.from({ length: 6300 }, (_, i) => ({
      id: `r${String(i).padStart(5, '0')}`,
      v: randomVector(random, dim),
      user: i % 21 === 0 ? 'small' : 'crowd',
    }));
    const small = rows.filter((r) => r.user === 'small');
    const names = pgNames('dense');
    let caps: PgVectorCapabilities;
    const request = (user: string, q: Float32Array, limit: number): PgVectorSearchRequest => ({
      where: `tenant = $1 AND user_id = $2 AND status = ANY($3::text[])`,
      params: ['big', user, ['activated']],
      space: { model: 'm', dim },
      vector: q,
      limit,
    });

    beforeAll(async () => {
      const store = await createPostgresStore({ connectionString: cluster.url, schema: 'dense', vector: 'pgvector' });
      await store.insert(vectorRecords(rows, 'big', 'm'));
      await store.close();
      await pool.query('ANALYZE dense.engram_memories');
      caps = await detectPgVector(clientQueries(pool));
      expect(caps.iterativeScan).toBe(true);
    });

    it('below the cut-over the scan is exact: ids and cosines equal brute force', async () => {
      const q = randomVector(random, dim);
      const got = await inTransaction((r) =>
        pgvectorDenseSearch(r, names, caps, request('small', q, 25), { exactMaxRows: 1000 }),
      );
      expect(got.path).toBe('exact');
      expect(got.candidates).toEqual(brute(small, q, 25));
    });

    it('above it the HNSW index answers, filters inside the scan: a small user in a big tenant gets a full pool', async () => {
      let equal = 0;
      const queries = 30;
      for (let i = 0; i < queries; i++) {
        const q = randomVector(random, dim);
        const got = await inTransaction(async (r) => {
          const result = await pgvectorDenseSearch(r, names, caps, request('small', q, 10), { exactMaxRows: 100 });
          const select = r.log.find((s) => s.includes('ORDER BY m.embedding::vector'))!;
          const plan = await r.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${select}`, [
            'big',
            'small',
            ['activated'],
            'm',
            dim,
            `[${q.join(',')}]`,
            40,
          ]);
          return { result, plan: plan.map((p) => p['QUERY PLAN']).join('\n') };
        });
        expect(got.result.path).toBe('hnsw');
        expect(got.plan).toContain(`Index Scan using ${denseIndexName(names.prefix, { model: 'm', dim })}`);
        expect(got.result.candidates).toHaveLength(10);
        expect(got.result.candidates.every((c) => small.some((s) => s.id === c.id))).toBe(true);
        const exact = brute(small, q, 10);
        if (JSON.stringify(got.result.candidates) === JSON.stringify(exact)) equal += 1;
      }
      expect(equal / queries).toBeGreaterThanOrEqual(0.9);
    });

    it('a remembered scope size changes the path, never the answer', async () => {
      const store = await createPostgresStore({ connectionString: cluster.url, schema: 'dense', vector: 'pgvector' });
      const sizes = new ScopeSizeCache(60_000);
      const q = randomVector(random, dim);
      const search = () =>
        inTransaction((r) => pgvectorDenseSearch(r, names, caps, request('moving', q, 10), { scopeSizes: sizes }));
      const grown = Array.from({ length: 3000 }, (_, i) => ({
        id: `g${i}`,
        v: randomVector(random, dim),
        user: 'moving',
      }));
      // 100 rows: exact, remembered as small; grown to 3,000 it stays exact until the entry expires.
      await store.insert(vectorRecords(grown.slice(0, 100), 'big', 'm'));
      expect((await search()).path).toBe('exact');
      await store.insert(vectorRecords(grown.slice(100), 'big', 'm'));
      const stale = await search();
      expect(stale.path).toBe('exact');
      expect(stale.candidates).toEqual(brute(grown, q, 10));
      // Counted afresh it is large; shrunk to fewer rows than the walk fetches (limit + margin),
      // the remembered "large" walks the index, comes back short, and falls back to the exact
      // scan: the answer is still exact.
      sizes.clear();
      expect((await search()).path).toBe('hnsw');
      const kept = 10 + FETCH_MARGIN - 5;
      await store.delete(
        'big',
        grown.slice(kept).map((g) => g.id),
      );
      const shrunk = await search();
      expect(shrunk.path).toBe('hnsw-short-exact');
      expect(shrunk.candidates).toEqual(brute(grown.slice(0, kept), q, 10));
      await store.close();
    });

    it('without iterative scans (pgvector < 0.8) the filtered graph walk comes back short and falls back to exact', async () => {
      const q = randomVector(random, dim);
      const old = { ...caps, iterativeScan: false };
      const got = await inTransaction((r) =>
        pgvectorDenseSearch(r, names, old, request('small', q, 10), { exactMaxRows: 100, efSearch: 40 }),
      );
      expect(got.path).toBe('hnsw-short-exact');
      expect(got.candidates).toEqual(brute(small, q, 10));
    });
  });

  it('over 2,000 dimensions a halfvec copy is indexed, over 4,000 none; both return exact cosines', async () => {
    const names = pgNames('wide');
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'wide', vector: 'pgvector' });
    const random = seededRandom(5);
    for (const dim of [2100, 4100]) {
      const rows = Array.from({ length: 40 }, (_, i) => ({
        id: `w${dim}-${i}`,
        v: randomVector(random, dim),
        user: 'u',
      }));
      await store.insert(vectorRecords(rows, 'acme', `wide-${dim}`));
      const q = randomVector(random, dim);
      const got = await inTransaction(async (r) => {
        const report = await ensureDenseIndex(r, names, { model: `wide-${dim}`, dim });
        const caps = await detectPgVector(r);
        const search = await pgvectorDenseSearch(
          r,
          names,
          caps,
          {
            where: 'tenant = $1',
            params: ['acme'],
            space: { model: `wide-${dim}`, dim },
            vector: q,
            limit: 5,
          },
          { exactMaxRows: 10 },
        );
        return { report, search };
      });
      expect(got.report.state).toBe(dim === 2100 ? 'present' : 'skipped');
      expect(got.search.path).toBe(dim === 2100 ? 'hnsw' : 'exact');
      expect(got.search.candidates).toEqual(brute(rows, q, 5));
    }
    const def = await pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'wide' AND indexdef LIKE '%hnsw%'`,
    );
    expect(def.rows.map((r) => r.indexdef)).toEqual([expect.stringContaining('halfvec(2100)')]);
    await store.close();
  });

  it('an invalid index (a failed concurrent build) is dropped and built again, concurrently', async () => {
    const names = pgNames('invalid');
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'invalid', vector: 'pgvector' });
    const random = seededRandom(9);
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: `i${i}`, v: randomVector(random, 8), user: 'u' }));
    await store.insert(vectorRecords(rows, 'acme', 'm'));
    const index = denseIndexName(names.prefix, { model: 'm', dim: 8 });
    await pool.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'invalid.${index}'::regclass`);
    const client = await pool.connect(); // one session: the advisory lock and CONCURRENTLY need it
    try {
      const report = await ensureDenseIndex(
        clientQueries(client),
        names,
        { model: 'm', dim: 8 },
        { concurrently: true },
      );
      expect(report.state).toBe('rebuilt');
      const valid = await client.query<{ v: boolean }>(
        `SELECT indisvalid AS v FROM pg_index WHERE indexrelid = 'invalid.${index}'::regclass`,
      );
      expect(valid.rows[0]?.v).toBe(true);
      const again = await ensureDenseIndex(
        clientQueries(client),
        names,
        { model: 'm', dim: 8 },
        { concurrently: true },
      );
      expect(again.state).toBe('present');
    } finally {
      client.release();
    }
    await store.close();
  });
});
