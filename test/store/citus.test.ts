/**
 * The store on a real Citus cluster (a coordinator and two workers on 127.0.0.1, started by the
 * test, pgvector on every node): detecting the coordinator, planning and distributing the
 * Engram schema (memories by tenant, co-located; global tables as reference tables), the
 * blockers the planner reports, pgvector settings reaching the worker, and the store conformance
 * suite on the distributed schema. Per-tenant routing of every store query: citus-routing.test.ts.
 */
import pg from 'pg';
import { clientQueries } from '../../src/store/postgres/pg-query-runner.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPgMigrations, createPostgresStore, PG_MIGRATIONS } from '../../src/store/postgres/index.js';
import {
  detectCitus,
  distributeSchema,
  planCitusDistribution,
  type CitusTablePlan,
} from '../../src/store/postgres/citus-distribution.js';
import { pgNames, type PgNames } from '../../src/store/postgres/pg-names.js';
import { pgvectorDenseSearch } from '../../src/store/postgres/pgvector-dense.js';
import { denseIndexName, detectPgVector } from '../../src/store/postgres/pgvector-indexes.js';
import { startCitusCluster, type CitusCluster } from '../support/citus-cluster.js';
import { describeWithPgExtensions } from '../support/pg-extensions.js';
import { runStoreConformance } from './conformance.js';
import { makeRecord, randomVector, seededRandom } from './fixtures/records.js';

/**
 * The store's INSERT … SELECT FROM unnest(…) runs on Citus as "pull to coordinator": the rows are
 * copied to their shard, and a duplicate key comes back as XX000 instead of 23505, so it is not
 * reported as CONFLICT. A multi-row INSERT … VALUES keeps 23505 and routes to one shard; the
 * engine's Citus dialect must insert that way (citus-routing.test.ts).
 */
const CITUS_INSERT_SKIPS = {
  'insert rejects an existing id with CONFLICT and stores nothing of the batch':
    'INSERT … SELECT via the coordinator reports a duplicate key as XX000 (engine: router VALUES inserts)',
  'insert rejects a duplicate id inside one batch and stores nothing':
    'INSERT … SELECT via the coordinator reports a duplicate key as XX000 (engine: router VALUES inserts)',
};

let cluster: CitusCluster;
let pool: pg.Pool;

/** Opens the store on `schema` (migrating it) and distributes the schema once. */
async function distributedStore(schema: string, exactSearchMaxRows?: number) {
  const store = await createPostgresStore({
    connectionString: cluster.url,
    topology: 'single-node',
    schema,
    vector: 'pgvector',
    exactSearchMaxRows,
    maxConnections: 4,
  });
  const report = await distributeSchema(clientQueries(pool), schema, { shardCount: 8 });
  return { store, report };
}

describeWithPgExtensions('citus (coordinator + 2 workers on 127.0.0.1)', ['citus', 'vector'], () => {
  beforeAll(async () => {
    cluster = await startCitusCluster({ database: 'engram_citus' });
    process.stderr.write(`citus cluster (coordinator + 2 workers) started in ${cluster.startupMs.toFixed(0)} ms\n`);
    pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
    pool.on('error', () => undefined);
  });
  afterAll(async () => {
    await pool?.end();
    await cluster?.stop();
  });

  it('detects the coordinator and its workers; plain PostgreSQL has no Citus', async () => {
    expect(await detectCitus(clientQueries(pool))).toEqual({
      installed: true,
      version: expect.stringMatching(/^13\./),
      coordinator: true,
      workers: 2,
    });
    const worker = new pg.Pool({ connectionString: cluster.workers[0]!.url(cluster.database), max: 1 });
    expect((await detectCitus(clientQueries(worker))).coordinator).toBe(false);
    await worker.end();
    const plain = new pg.Pool({ connectionString: cluster.workers[0]!.url('postgres'), max: 1 });
    expect(await detectCitus(clientQueries(plain))).toEqual({
      installed: false,
      version: null,
      coordinator: false,
      workers: 0,
    });
    await plain.end();
  });

  it('distributes the Engram schema: memories by tenant, migrations as a reference table; idempotent', async () => {
    const { store, report } = await distributedStore('engram');
    expect(report.map((r) => [r.table, r.kind, r.state, r.blockers])).toEqual([
      ['engram_schema_migrations', 'reference', 'placed', []],
      ['engram_memories', 'distributed', 'placed', []],
    ]);
    const placed = await pool.query<{ t: string; method: string; key: string | null }>(
      `SELECT logicalrelid::text AS t, partmethod::text AS method, column_to_column_name(logicalrelid, partkey) AS key
         FROM pg_dist_partition WHERE logicalrelid::text LIKE 'engram.%' ORDER BY 1`,
    );
    expect(placed.rows).toEqual([
      { t: 'engram.engram_memories', method: 'h', key: 'tenant' },
      { t: 'engram.engram_schema_migrations', method: 'n', key: null },
    ]);
    const nodes = await pool.query<{ n: number }>(
      `SELECT count(DISTINCT nodeport)::int AS n FROM citus_shards WHERE table_name::text = 'engram.engram_memories'`,
    );
    expect(nodes.rows[0]?.n).toBe(2);
    const again = await distributeSchema(clientQueries(pool), 'engram');
    expect(again.map((r) => r.state)).toEqual(['already', 'already']);
    // A later per-tenant table is distributed co-located on the next run, if its tenant column
    // matches the memories table's type and collation (text COLLATE "C").
    await pool.query(`CREATE TABLE engram.engram_links (tenant text COLLATE "C" NOT NULL, id text, PRIMARY KEY (tenant, id));
      CREATE TABLE engram.engram_things (tenant text NOT NULL, id text, PRIMARY KEY (tenant, id))`);
    const later = await distributeSchema(clientQueries(pool), 'engram');
    expect(later.map((r) => [r.table, r.state, r.blockers])).toEqual([
      ['engram_schema_migrations', 'already', []],
      ['engram_links', 'placed', []],
      ['engram_memories', 'already', []],
      [
        'engram_things',
        'blocked',
        ['tenant is text COLLATE "default", not text COLLATE "C" as in engram_memories: it cannot be co-located'],
      ],
    ]);
    const colocation = await pool.query<{ n: number }>(
      `SELECT count(DISTINCT colocationid)::int AS n FROM pg_dist_partition
        WHERE logicalrelid IN ('engram.engram_memories'::regclass, 'engram.engram_links'::regclass)`,
    );
    expect(colocation.rows[0]?.n).toBe(1);
    // Migrating again on the distributed schema is a no-op that still works.
    await store.migrate();
    await store.close();
  });

  it('a schema distributed before pgvector gains the column, its backfill and index on every shard; later migrations apply', async () => {
    const app = await createPostgresStore({
      connectionString: cluster.url,
      topology: 'single-node',
      schema: 'late',
      vector: 'app',
    });
    const random = seededRandom(41);
    const records = Array.from({ length: 30 }, (_, i) =>
      makeRecord({
        id: `l${i}`,
        scope: { tenant: `t${i % 5}` },
        embedding: { model: 'm', dim: 6 },
        vector: randomVector(random, 6),
      }),
    );
    await app.insert(records);
    expect((await distributeSchema(clientQueries(pool), 'late', { shardCount: 4 })).map((r) => r.state)).toEqual([
      'placed',
      'placed',
    ]);
    const before = await app.denseSearch({
      filter: { scope: { tenant: 't1' } },
      vector: records[1]!.vector!,
      model: 'm',
      limit: 5,
    });
    await app.close();
    // Opened with pgvector: ALTER TABLE … ADD COLUMN and the backfill UPDATE run on every shard.
    const withVector = await createPostgresStore({
      connectionString: cluster.url,
      topology: 'single-node',
      schema: 'late',
      vector: 'pgvector',
    });
    const missing = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM late.engram_memories WHERE embedding IS NULL OR vector_dims(embedding) <> embed_dim`,
    );
    expect(missing.rows[0]?.n).toBe(0);
    const onShards = await pool.query<{ result: string }>(
      `SELECT result FROM run_command_on_shards('late.engram_memories', $$SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = '%s'::regclass AND c.relname LIKE '%%hnsw%%'$$)`,
    );
    expect(onShards.rows.map((r) => r.result)).toEqual(['1', '1', '1', '1']);
    expect(
      await withVector.denseSearch({
        filter: { scope: { tenant: 't1' } },
        vector: records[1]!.vector!,
        model: 'm',
        limit: 5,
      }),
    ).toEqual(before);
    await withVector.close();
    // A later migration: DDL on the distributed table and the version row in the reference table, one transaction.
    const next = [
      ...PG_MIGRATIONS,
      {
        version: 900,
        name: 'level-index',
        sql: (n: PgNames) => `CREATE INDEX ${n.prefix}_level ON ${n.memories} (tenant, level)`,
      },
    ];
    expect((await applyPgMigrations(pool, { schema: 'late', migrations: next })).applied).toEqual([900]);
    const level = await pool.query<{ result: string }>(
      `SELECT result FROM run_command_on_shards('late.engram_memories', $$SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = '%s'::regclass AND c.relname LIKE 'engram_memories_level%%'$$)`,
    );
    expect(level.rows.map((r) => r.result)).toEqual(['1', '1', '1', '1']);
  });

  it('names what blocks distribution, and places only what it can, in foreign-key order', async () => {
    await pool.query(`CREATE SCHEMA blocked;
      CREATE TABLE blocked.codes (code text PRIMARY KEY);
      CREATE TABLE blocked.pk_without (tenant text NOT NULL, id text PRIMARY KEY);
      CREATE TABLE blocked.users (tenant text NOT NULL, id text, email text UNIQUE, PRIMARY KEY (tenant, id));
      CREATE TABLE blocked.events (tenant text NOT NULL, n bigserial, code text REFERENCES blocked.codes (code),
                                   PRIMARY KEY (tenant, n));
      CREATE TABLE blocked.notes (tenant text NOT NULL, id text, owner_tenant text, owner text,
                                  PRIMARY KEY (tenant, id), FOREIGN KEY (owner_tenant, owner) REFERENCES blocked.users (tenant, id));
      CREATE TABLE blocked.audit (at text, who_tenant text, who text, FOREIGN KEY (who_tenant, who) REFERENCES blocked.users (tenant, id));
      CREATE TABLE blocked.tagged (tenant text NOT NULL, id text, tag text, PRIMARY KEY (tenant, id));
      CREATE UNIQUE INDEX tagged_tag ON blocked.tagged (tag);
      CREATE FUNCTION blocked.touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
      CREATE TRIGGER touch BEFORE INSERT ON blocked.events FOR EACH ROW EXECUTE FUNCTION blocked.touch();`);
    const plans = await planCitusDistribution(clientQueries(pool), 'blocked');
    const byTable = (name: string): CitusTablePlan => plans.find((p) => p.table === name)!;
    expect(byTable('codes')).toMatchObject({ kind: 'reference', blockers: [], notes: [] });
    expect(byTable('pk_without').blockers).toEqual(['primary key pk_without_pkey does not include tenant']);
    expect(byTable('users').blockers).toEqual(['unique constraint users_email_key does not include tenant']);
    expect(byTable('events')).toMatchObject({
      kind: 'distributed',
      blockers: ['trigger touch (Citus needs citus.enable_unsafe_triggers)'],
      notes: ['column n takes values from a sequence: unique across nodes, not gap-free or in insert order'],
      references: ['codes'],
    });
    expect(byTable('notes').blockers).toEqual([
      'foreign key notes_owner_tenant_owner_fkey to users does not pair tenant with tenant',
    ]);
    expect(byTable('audit')).toMatchObject({
      kind: 'reference',
      blockers: ['foreign key audit_who_tenant_who_fkey: a reference table cannot reference the distributed users'],
    });
    expect(byTable('tagged').blockers).toEqual(['unique index tagged_tag does not include tenant']);

    await pool.query('DROP TRIGGER touch ON blocked.events');
    const report = await distributeSchema(clientQueries(pool), 'blocked', { shardCount: 4 });
    const states = Object.fromEntries(report.map((r) => [r.table, r.state]));
    expect(states).toEqual({
      codes: 'placed',
      audit: 'blocked',
      events: 'placed',
      pk_without: 'blocked',
      users: 'blocked',
      notes: 'blocked',
      tagged: 'blocked',
    });
    expect(report.map((r) => r.table).indexOf('codes')).toBeLessThan(report.map((r) => r.table).indexOf('events'));
  });

  it('pgvector settings reach the worker: a small user in a big tenant gets a full pool from the HNSW index', async () => {
    const { store } = await distributedStore('dense_citus');
    const random = seededRandom(23);
    const dim = 16;
    const rows = Array.from({ length: 4200 }, (_, i) => ({
      id: `r${String(i).padStart(5, '0')}`,
      v: randomVector(random, dim),
      user: i % 21 === 0 ? 'small' : 'crowd',
    }));
    await store.insert(
      rows.map((r) =>
        makeRecord({ id: r.id, scope: { tenant: 'big', user: r.user }, embedding: { model: 'm', dim }, vector: r.v }),
      ),
    );
    await store.close();
    const names = pgNames('dense_citus');
    const client = await pool.connect();
    try {
      const caps = await detectPgVector(clientQueries(client));
      expect(caps).toMatchObject({ citus: true, iterativeScan: true });
      await client.query('BEGIN');
      const q = randomVector(random, dim);
      const request = {
        where: `tenant = $1 AND user_id = $2`,
        params: ['big', 'small'],
        space: { model: 'm', dim },
        vector: q,
        limit: 10,
      };
      const result = await pgvectorDenseSearch(clientQueries(client), names, caps, request, { exactMaxRows: 50 });
      // Without the settings on the worker, the walk would stop at ef_search rows and come back short.
      expect(result.path).toBe('hnsw');
      expect(result.candidates).toHaveLength(10);
      const probe = await client.query<{ ef: string; it: string }>(
        `SELECT current_setting('hnsw.ef_search') AS ef, current_setting('hnsw.iterative_scan') AS it
           FROM dense_citus.engram_memories WHERE tenant = 'big' LIMIT 1`,
      );
      expect(probe.rows[0]).toEqual({ ef: '400', it: 'relaxed_order' });
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM dense_citus.engram_memories WHERE tenant = 'big' AND user_id = 'small'
           AND embed_model = 'm' AND embed_dim = ${dim}
           ORDER BY embedding::vector(${dim}) <=> '[${q.join(',')}]'::vector(${dim}) LIMIT 40`,
      );
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toContain('Task Count: 1');
      expect(text).toContain(`Index Scan using ${denseIndexName(names.prefix, { model: 'm', dim })}_`);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  describe('store conformance on the distributed schema', () => {
    let distributed = false;
    runStoreConformance(
      'citus (distributed by tenant, pgvector, HNSW above 5 rows)',
      async () => {
        const store = await createPostgresStore({
          connectionString: cluster.url,
          topology: 'single-node',
          schema: 'conformance',
          vector: 'pgvector',
          exactSearchMaxRows: 5,
          maxConnections: 4,
        });
        if (!distributed) {
          const report = await distributeSchema(clientQueries(pool), 'conformance', { shardCount: 8 });
          expect(report.map((r) => r.state)).toEqual(['placed', 'placed']);
          distributed = true;
        }
        return { store, cleanup: () => store.close() };
      },
      { skip: CITUS_INSERT_SKIPS },
    );
  });
});
