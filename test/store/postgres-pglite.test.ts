/**
 * The PostgreSQL store on PGlite (WASM PostgreSQL) with pgvector: the conformance suite through
 * the pgvector code path (server-side candidate selection, HNSW index), plus pgvector specifics:
 * exactness for small filters, ANN recall for large ones, HNSW index use, and backfilling the
 * pgvector column for rows written before the extension was there.
 */
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DenseCandidate } from '../../src/store/memory-store.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { denseIndexName } from '../../src/store/postgres/pgvector-indexes.js';
import { runStoreConformance } from './conformance.js';
import { unitDot, unitVector } from '../../src/vector/unit-cosine.js';
import { makeRecord, randomVector, seededRandom } from './fixtures/records.js';

let db: PGlite;
let pool: pg.Pool;
beforeAll(async () => {
  db = await PGlite.create('memory://', { extensions: { vector } });
  pool = new pg.Pool(createPgConfig(db) as unknown as pg.PoolConfig);
  pool.options.max = 1;
});
afterAll(async () => {
  await pool?.end();
  await db?.close();
});

// exactSearchMaxRows 5: every test with more than 5 candidate rows goes through the HNSW index.
runStoreConformance(
  'postgres on PGlite (pgvector, HNSW above 5 rows)',
  async () => {
    const store = await createPostgresStore({ pool, schema: 'conformance', vector: 'pgvector', exactSearchMaxRows: 5 });
    return { store, cleanup: () => store.close() };
  },
  {
    answersSearchExtras: true,
    // The suite's raw write: a 7-byte vector in the row's float32 column.
    async corruptVector(_store, tenant, id) {
      await pool.query(
        `UPDATE conformance.engram_memories SET vector = '\\x01020304050607'::bytea WHERE tenant = $1 AND id = $2`,
        [tenant, id],
      );
    },
  },
);

/** The stores' cosine: unit float32 vectors, float64 dot (same arithmetic as SQLite). */
function cosine(a: Float32Array, b: Float32Array): number {
  return unitDot(unitVector(a)!, unitVector(b)!);
}

function bruteForce(rows: Array<{ id: string; v: Float32Array }>, q: Float32Array, k: number): DenseCandidate[] {
  return rows
    .map((r) => ({ id: r.id, cosine: cosine(q, r.v) }))
    .sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

describe('pgvector path', () => {
  const dim = 24;
  const hnswIndex = denseIndexName('engram_memories', { model: 'm', dim });
  const random = seededRandom(42);
  const rows = Array.from({ length: 1500 }, (_, i) => ({
    id: `v${String(i).padStart(5, '0')}`,
    v: randomVector(random, dim),
  }));
  const records = rows.map((r, i) =>
    makeRecord({
      id: r.id,
      scope: { tenant: 'vec', user: i % 2 === 0 ? 'even' : 'odd' },
      embedding: { model: 'm', dim },
      vector: r.v,
    }),
  );

  it('uses pgvector, builds a per-(model, dimension) HNSW index, and answers small filters exactly', async () => {
    const store = await createPostgresStore({ pool, schema: 'pgv', vector: 'auto', exactSearchMaxRows: 500 });
    expect(store.usesPgVector).toBe(true);
    await store.insert(records);
    const idx = await pool.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = 'pgv' AND indexname LIKE '%hnsw%'`,
    );
    expect(idx.rows.map((r) => r.indexname)).toEqual([hnswIndex]);
    // 400 rows match (ids filter): exact path, identical to brute force, ids and cosines.
    const subset = rows.slice(0, 400);
    const q = randomVector(random, dim);
    const got = await store.denseSearch({
      filter: { scope: { tenant: 'vec' }, ids: subset.map((r) => r.id) },
      vector: q,
      model: 'm',
      limit: 25,
    });
    expect(got).toEqual(bruteForce(subset, q, 25));
    await store.close();
  });

  it('large filters go through the HNSW index with high recall, and scores are exact cosines', async () => {
    const store = await createPostgresStore({ pool, schema: 'pgv', vector: 'pgvector', exactSearchMaxRows: 100 });
    const before = await pool.query<{ n: string }>(
      `SELECT idx_scan::text AS n FROM pg_stat_user_indexes WHERE schemaname = 'pgv' AND indexrelname = '${hnswIndex}'`,
    );
    let hits = 0;
    let total = 0;
    for (let i = 0; i < 10; i++) {
      const q = randomVector(random, dim);
      const got = await store.denseSearch({ filter: { scope: { tenant: 'vec' } }, vector: q, model: 'm', limit: 10 });
      const exact = bruteForce(rows, q, 10);
      const exactIds = new Set(exact.map((e) => e.id));
      hits += got.filter((g) => exactIds.has(g.id)).length;
      total += 10;
      // Whatever the index returned is re-scored exactly.
      for (const g of got) expect(g.cosine).toBe(cosine(q, rows.find((r) => r.id === g.id)!.v));
    }
    expect(hits / total).toBeGreaterThanOrEqual(0.95);
    await pool.query('SELECT pg_stat_force_next_flush()');
    const after = await pool.query<{ n: string }>(
      `SELECT idx_scan::text AS n FROM pg_stat_user_indexes WHERE schemaname = 'pgv' AND indexrelname = '${hnswIndex}'`,
    );
    expect(Number(after.rows[0]?.n ?? 0)).toBeGreaterThan(Number(before.rows[0]?.n ?? 0));
    // A filtered ANN query (half the rows) still fills the limit, only with matching rows.
    const q = randomVector(random, dim);
    const odd = await store.denseSearch({
      filter: { scope: { tenant: 'vec', user: 'odd' } },
      vector: q,
      model: 'm',
      limit: 20,
    });
    expect(odd).toHaveLength(20);
    expect(odd.every((c) => Number(c.id.slice(1)) % 2 === 1)).toBe(true);
    await store.close();
  });

  it('rows written without pgvector are backfilled when the column is added, bit for bit', async () => {
    const plain = await createPostgresStore({ pool, schema: 'backfill', vector: 'app' });
    const some = rows.slice(0, 300);
    await plain.insert(records.slice(0, 300));
    const noColumn = await pool.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = 'backfill' AND column_name = 'embedding'`,
    );
    expect(noColumn.rows).toHaveLength(0);
    const q = randomVector(random, dim);
    const appAnswer = await plain.denseSearch({
      filter: { scope: { tenant: 'vec' } },
      vector: q,
      model: 'm',
      limit: 15,
    });
    await plain.close();

    const withVector = await createPostgresStore({
      pool,
      schema: 'backfill',
      vector: 'pgvector',
      exactSearchMaxRows: 1000,
    });
    const mismatches = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM backfill.engram_memories WHERE embedding IS NULL OR vector_dims(embedding) <> embed_dim`,
    );
    expect(mismatches.rows[0]?.n).toBe(0);
    // The backfilled values are the float32 values exactly.
    const sample = await pool.query<{ id: string; e: string }>(
      `SELECT id, embedding::text AS e FROM backfill.engram_memories ORDER BY id LIMIT 50`,
    );
    for (const row of sample.rows) {
      const original = some.find((r) => r.id === row.id)!.v;
      const parsed = Float32Array.from(JSON.parse(row.e) as number[]);
      expect(Buffer.from(parsed.buffer).equals(Buffer.from(original.buffer))).toBe(true);
    }
    expect(
      await withVector.denseSearch({ filter: { scope: { tenant: 'vec' } }, vector: q, model: 'm', limit: 15 }),
    ).toEqual(appAnswer);
    await withVector.close();
  });
});
