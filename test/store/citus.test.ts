/**
 * The store on a real Citus cluster (a coordinator and two workers on 127.0.0.1, started by the
 * test, pgvector on every node): `migrate` on the coordinator distributes the Engram schema
 * (per-tenant tables by tenant, co-located; global tables as reference tables), the store
 * conformance suite and the MemoryApi conformance suite pass on it, and every statement a
 * per-tenant call sends is routed to one shard (EXPLAIN: Task Count: 1). The distribution
 * planner's blockers and pgvector settings reaching the worker are checked on the modules.
 * Faults (a worker stopped, the coordinator restarted, an online rebalance): citus-faults.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import type { MemoryRecord } from '../../src/store/memory-store.js';
import {
  applyPgMigrations,
  clientQueries,
  createPostgresStore,
  DEFAULT_EF_SEARCH,
  denseIndexName,
  detectCitus,
  detectPgVector,
  distributeSchema,
  PG_MIGRATIONS,
  pgvectorDenseSearch,
  planCitusDistribution,
  type CitusTablePlan,
  type PostgresStoreOptions,
} from '../../src/store/postgres/index.js';
import { pgNames, type PgNames } from '../../src/store/postgres/pg-names.js';
import { runMemoryApiConformance } from '../api/conformance.js';
import { startCitusCluster, type CitusCluster } from '../support/citus-cluster.js';
import { expectCode } from '../support/expect-code.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { describeWithPgExtensions } from '../support/pg-extensions.js';
import { dataStatements, explain, recordingPool, type RecordedStatement } from '../support/recorded-statements.js';
import { runStoreConformance } from './conformance.js';
import { corruptVectorIn } from './fixtures/pg-corrupt-vector.js';
import { makeRecord, randomVector, seededRandom } from './fixtures/records.js';

let cluster: CitusCluster;
let pool: pg.Pool;
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');

/** Opens (and migrates) the store on `schema` of the coordinator; Citus is detected. */
function openStore(schema: string, options: Partial<PostgresStoreOptions> = {}) {
  return createPostgresStore({ connectionString: cluster.url, schema, maxConnections: 4, ...options });
}

/** Every (table, method, distribution column, co-location group) of a schema in Citus' metadata. */
async function placements(schema: string) {
  const rows = await pool.query<{ t: string; method: string; key: string | null; group: number }>(
    `SELECT logicalrelid::text AS t, partmethod::text AS method, column_to_column_name(logicalrelid, partkey) AS key,
            colocationid::int AS group FROM pg_dist_partition WHERE logicalrelid::text LIKE $1 ORDER BY 1`,
    [`${schema}.%`],
  );
  return rows.rows;
}

describeWithPgExtensions('citus (coordinator + 2 workers on 127.0.0.1)', ['citus', 'vector'], () => {
  beforeAll(async () => {
    cluster = await startCitusCluster({ database: 'engram_citus', settings: { 'citus.shard_count': 8 } });
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

  it('migrate on the coordinator distributes the Engram tables by tenant and makes the global ones reference tables', async () => {
    await pool.query(`CREATE SCHEMA engram; CREATE TABLE engram.not_ours (tenant text, x int)`);
    const store = await openStore('engram', { migrate: false });
    expect(store.topology.name).toBe('citus');
    const report = await store.migrateWithReport();
    expect(report.topology).toBe('citus');
    expect(report.extension?.state).toBe('present');
    expect(report.placements).toEqual([
      { table: 'engram_schema_migrations', kind: 'reference', state: 'placed' },
      { table: 'engram_formation_jobs', kind: 'distributed', state: 'placed' },
      { table: 'engram_memories', kind: 'distributed', state: 'placed' },
      { table: 'engram_memory_history', kind: 'distributed', state: 'placed' },
    ]);
    const placed = await placements('engram');
    expect(placed.map(({ t, method, key }) => [t, method, key])).toEqual([
      ['engram.engram_formation_jobs', 'h', 'tenant'],
      ['engram.engram_memories', 'h', 'tenant'],
      ['engram.engram_memory_history', 'h', 'tenant'],
      ['engram.engram_schema_migrations', 'n', null],
    ]);
    // Memories, their history and the work queue of one tenant live in one shard group.
    expect(new Set(placed.filter((p) => p.method === 'h').map((p) => p.group)).size).toBe(1);
    // Shards on both workers; a table of the schema that is not Engram's is left alone.
    const nodes = await pool.query<{ n: number }>(
      `SELECT count(DISTINCT nodeport)::int AS n FROM citus_shards WHERE table_name::text = 'engram.engram_memories'`,
    );
    expect(nodes.rows[0]?.n).toBe(2);
    const again = await store.migrateWithReport();
    expect(again.placements.map((p) => p.state)).toEqual(['already', 'already', 'already', 'already']);
    await store.close();
  });

  it('`engram migrate` on the coordinator prints where each table went', async () => {
    const run = (): string =>
      execFileSync(TSX, [BIN, '--store', cluster.url, 'migrate'], { encoding: 'utf8', env: { ...process.env } });
    const first = run().split('\n');
    expect(first).toContain('topology: citus');
    expect(first).toContain('  engram_memories: distributed by tenant (placed now)');
    expect(first).toContain('  engram_schema_migrations: reference table (placed now)');
    expect(first).toContainEqual(expect.stringMatching(/^pgvector: pgvector 0\.\d+\.\d+ is installed$/));
    expect(run().split('\n')).toContain('  engram_memories: distributed by tenant (already)');
  });

  it('the Citus topology refuses a server that is not a coordinator, saying why', async () => {
    const plain = cluster.workers[0]!.url('postgres');
    await expectCode(
      createPostgresStore({ connectionString: plain, schema: 'forced', topology: 'citus', vector: 'app' }),
      'CONFIG_ERROR',
    );
    const worker = cluster.workers[1]!.url(cluster.database);
    const error = await createPostgresStore({ connectionString: worker, schema: 'forced', topology: 'citus' }).catch(
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(/needs a coordinator/);
  });

  it('distributeSchema co-locates a later tenant table whose tenant column matches, and names what blocks another', async () => {
    const sql = clientQueries(pool);
    const store = await openStore('later');
    await pool.query(`CREATE TABLE later.engram_links (tenant text COLLATE "C" NOT NULL, id text, PRIMARY KEY (tenant, id));
      CREATE TABLE later.engram_things (tenant text NOT NULL, id text, PRIMARY KEY (tenant, id))`);
    const later = await distributeSchema(sql, 'later');
    expect(later.map((r) => [r.table, r.state, r.blockers])).toEqual([
      ['engram_schema_migrations', 'already', []],
      ['engram_formation_jobs', 'already', []],
      ['engram_links', 'placed', []],
      ['engram_memories', 'already', []],
      ['engram_memory_history', 'already', []],
      [
        'engram_things',
        'blocked',
        ['tenant is text COLLATE "default", not text COLLATE "C" as in engram_memories: it cannot be co-located'],
      ],
    ]);
    const groups = (await placements('later')).filter((p) => p.method === 'h').map((p) => p.group);
    expect(groups).toHaveLength(4);
    expect(new Set(groups).size).toBe(1);
    await store.migrate();
    await store.close();
  });

  it('a schema distributed before pgvector gains the column, its backfill and index on every shard; later migrations apply', async () => {
    const app = await openStore('late', { vector: 'app' });
    expect((await placements('late')).map((p) => p.method)).toEqual(['h', 'h', 'h', 'n']);
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
    const query = { filter: { scope: { tenant: 't1' } }, vector: records[1]!.vector!, model: 'm', limit: 5 };
    const before = await app.denseSearch(query);
    await app.close();
    // Opened with pgvector: ALTER TABLE … ADD COLUMN and the backfill UPDATE run on every shard.
    const withVector = await openStore('late', { vector: 'pgvector' });
    const missing = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM late.engram_memories WHERE embedding IS NULL OR vector_dims(embedding) <> embed_dim`,
    );
    expect(missing.rows[0]?.n).toBe(0);
    const onShards = await pool.query<{ result: string }>(
      `SELECT result FROM run_command_on_shards('late.engram_memories', $$SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = '%s'::regclass AND c.relname LIKE '%%hnsw%%'$$)`,
    );
    expect(onShards.rows.map((r) => r.result)).toEqual(Array(8).fill('1'));
    expect(await withVector.denseSearch(query)).toEqual(before);
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
    expect(level.rows.map((r) => r.result)).toEqual(Array(8).fill('1'));
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
    const sql = clientQueries(pool);
    const plans = await planCitusDistribution(sql, 'blocked');
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
    const report = await distributeSchema(sql, 'blocked', { shardCount: 4 });
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
    const store = await openStore('dense_citus', { vector: 'pgvector' });
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
      const sql = clientQueries(client);
      const caps = await detectPgVector(sql);
      expect(caps).toMatchObject({ citus: true, iterativeScan: true });
      await client.query('BEGIN');
      const q = randomVector(random, dim);
      const request = {
        where: `m.tenant = $1 AND m.user_id = $2`,
        params: ['big', 'small'],
        space: { model: 'm', dim },
        vector: q,
        limit: 10,
      };
      const result = await pgvectorDenseSearch(sql, names, caps, request, { exactMaxRows: 50 });
      // Without the settings on the worker, the walk would stop at ef_search rows and come back short.
      expect(result.path).toBe('hnsw');
      expect(result.candidates).toHaveLength(10);
      const probe = await client.query<{ ef: string; it: string }>(
        `SELECT current_setting('hnsw.ef_search') AS ef, current_setting('hnsw.iterative_scan') AS it
           FROM dense_citus.engram_memories WHERE tenant = 'big' LIMIT 1`,
      );
      expect(probe.rows[0]).toEqual({ ef: String(DEFAULT_EF_SEARCH), it: 'relaxed_order' });
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
    runStoreConformance(
      'citus (distributed by tenant, pgvector, HNSW above 5 rows)',
      async () => {
        const store = await openStore('conformance', { vector: 'pgvector', exactSearchMaxRows: 5 });
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
  });

  it('the full-text channel reads the word shares from the shards: a word most rows hold is left out', async () => {
    const store = await openStore('shares');
    const big = Array.from({ length: 12_000 }, (_, i) =>
      makeRecord({ id: `c${i}`, text: `common filler ${i}`, scope: { tenant: `t${i % 40}` } }),
    );
    const rare = Array.from({ length: 5 }, (_, i) =>
      makeRecord({ id: `r${i}`, text: `rare thing ${i}`, scope: { tenant: 't1' } }),
    );
    try {
      for (let i = 0; i < big.length; i += 3000) await store.insert(big.slice(i, i + 3000));
      await store.insert(rare);
      // The coordinator's table has no statistics of its own; ANALYZE runs on every shard.
      await pool.query('ANALYZE shares.engram_memories');
      const own = await pool.query(
        `SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = 'shares' AND attname = 'fts'`,
      );
      expect(own.rows[0]?.n).toBe(0);
      const query = { filter: { scope: { tenant: 't1' } }, terms: ['common', 'rare'], limit: 50 };
      // "common" is in 99.96% of the rows: left out, so only the rows holding "rare" are ranked.
      const fresh = await openStore('shares');
      expect((await fresh.lexicalSearch(query)).map((c) => c.id).sort()).toEqual(rare.map((r) => r.id).sort());
      await fresh.close();
      const everyWord = await openStore('shares', { fullTextMaxShare: 1 });
      const all = await everyWord.lexicalSearch(query);
      expect(all.length).toBe(50);
      expect(all.filter((c) => c.id.startsWith('c')).length).toBeGreaterThan(0);
      await everyWord.close();
    } finally {
      await store.close();
    }
  });

  it('every statement the store makes for one tenant is routed to one shard (EXPLAIN: Task Count: 1)', async () => {
    const log: RecordedStatement[] = [];
    const recorded = recordingPool(cluster.url, log);
    // Two stores: one takes the HNSW path above 20 rows, one the default (measured) cut-over.
    const hnsw = await createPostgresStore({ pool: recorded, schema: 'routed', exactSearchMaxRows: 20 });
    const measured = await createPostgresStore({ pool: recorded, schema: 'routed' });
    const tenant = 'acme';
    try {
      const random = seededRandom(31);
      const records: MemoryRecord[] = Array.from({ length: 60 }, (_, i) =>
        makeRecord({
          id: `m${i}`,
          text: `note ${i} about coffee and tea`,
          scope: { tenant, user: i % 2 === 0 ? 'ann' : 'bob' },
          tags: i % 3 === 0 ? ['x'] : [],
          embedding: { model: 'm', dim: 8 },
          vector: randomVector(random, 8),
        }),
      );
      log.length = 0;
      await hnsw.insert(records);
      await tenantCalls(hnsw, tenant, random);
      await tenantCalls(measured, tenant, random);
      await formationCalls(hnsw, tenant);
      const statements = dataStatements(log);
      expect(statements.length).toBeGreaterThanOrEqual(15);
      expect(statements.some((s) => /^INSERT INTO .* VALUES/s.test(s.sql))).toBe(true);
      // The formation tables were written and read too (history, episodes, the work queue).
      for (const table of ['engram_memory_history', 'engram_formation_jobs'])
        expect(statements.some((s) => s.sql.includes(`"routed".${table}`))).toBe(true);
      // Both dense paths were taken: the HNSW index scan and the exact scan.
      expect(statements.some((s) => /ORDER BY m\.embedding::vector\(8\) <=>/.test(s.sql))).toBe(true);
      expect(statements.some((s) => /ORDER BY m\.embedding <=> \$\d+::vector, m\.id/.test(s.sql))).toBe(true);
      const notRouted: string[] = [];
      for (const s of statements) {
        // The tenant key travels with every statement (as a literal in a statement sent with its settings).
        if (s.params.length === 0) expect(s.sql).toContain(`E'${tenant}'`);
        else expect(s.params, s.sql).toContain(tenant);
        const plan = await explain(pool, s);
        if (!/Task Count: 1\n/.test(`${plan}\n`)) notRouted.push(`${s.sql}\n${plan}`);
      }
      expect(notRouted).toEqual([]);
    } finally {
      await hnsw.close();
      await measured.close();
      await recorded.end();
    }
  });

  // Compared with the same engine on one server: local tables of the coordinator, app-side
  // vectors (PostgreSQL's ts_rank is its lexical relevance; SQLite's bm25 differs by design).
  runMemoryApiConformance(
    'Engram on Citus (coordinator + 2 workers, pgvector)',
    async () => {
      const store = await openStore('api', { vector: 'pgvector', exactSearchMaxRows: 5 });
      const engram = await Engram.open({ store, embedder: new HashedEmbedder() });
      return { api: engram, cleanup: () => engram.close() };
    },
    {
      reference: async () =>
        Engram.open({
          store: await openStore('api_reference', { topology: 'single-node', vector: 'app' }),
          embedder: new HashedEmbedder(),
        }),
    },
  );
});

/** One of each per-tenant call of the store contract. */
async function tenantCalls(
  store: Awaited<ReturnType<typeof createPostgresStore>>,
  tenant: string,
  random: () => number,
): Promise<void> {
  await store.get(tenant, ['m1', 'm2']);
  await store.getTexts(tenant, ['m1', 'm3']);
  await store.getVectors(tenant, ['m1', 'm3']);
  await store.update(
    tenant,
    'm4',
    { text: 'tea only', tags: ['y'], updatedAt: new Date().toISOString() },
    { vector: randomVector(random, 8), embedding: { model: 'm', dim: 8 } },
  );
  const page = await store.list({ scope: { tenant } }, { limit: 5, order: 'updatedAt', direction: 'desc' });
  await store.list(
    { scope: { tenant } },
    { limit: 5, cursor: page.nextCursor ?? undefined, order: 'updatedAt', direction: 'desc' },
  );
  await store.count({ scope: { tenant, user: 'ann' }, tags: ['x'] });
  await store.stats({ scope: { tenant } });
  const q = randomVector(random, 8);
  await store.denseSearch({ filter: { scope: { tenant, user: 'ann' } }, vector: q, model: 'm', limit: 5 });
  await store.denseSearch({ filter: { scope: { tenant }, ids: ['m1', 'm2'] }, vector: q, model: 'm', limit: 5 });
  await store.lexicalSearch({ filter: { scope: { tenant } }, terms: ['coffee'], limit: 5 });
  await store.lexicalSearch({ filter: { scope: { tenant } }, terms: ['tea'], limit: 5, space: { model: 'm', dim: 8 } });
  await store.recordUsage(tenant, ['m1', 'm2'], new Date().toISOString());
  await store.setUsage(tenant, [{ id: 'm1', count: 3, lastUsedAt: null }]);
  await store.delete(tenant, ['m5']);
}

/** One tenant's formation storage calls: episodes with their job, the queue's life cycle, the history log. */
async function formationCalls(store: Awaited<ReturnType<typeof createPostgresStore>>, tenant: string): Promise<void> {
  const formation = store.formation!;
  const scope = { tenant, user: 'ann' };
  const at = '2026-03-01T09:00:00.000Z';
  const turn = {
    role: 'user' as const,
    text: 'I moved to Lyon',
    speaker: null,
    session: 's1',
    messageId: 'x1',
    occurredAt: at,
  };
  const plans = await formation.episodes.appendEpisodes([{ scope, origin: 'capture', turn }], {
    at,
    jobsFor: (p) => [
      {
        scope,
        idempotencyKey: 'w1',
        extractor: { name: 'rules', version: 'r1' },
        episodeIds: p.map((x) => x.episode.id),
        session: 's1',
        timezoneOffsetMinutes: 0,
      },
    ],
  });
  const id = plans[0]!.episode.id;
  await formation.episodes.getEpisodes(tenant, [id]);
  await formation.episodes.findEpisode(scope, plans[0]!.episode.textKey);
  const [job] = await formation.queue.claim({ owner: 'w', limit: 2, now: at, leaseMs: 60_000, tenant });
  await formation.queue.renew(tenant, job!.id, 'w', '2026-03-01T09:05:00.000Z');
  await formation.queue.fail(
    tenant,
    job!.id,
    'w',
    { code: 'LLM_ERROR', message: 'down', retryable: true, at },
    { state: 'retrying', nextRunAt: '2026-03-01T09:10:00.000Z', delayMs: 600_000 },
  );
  await formation.queue.status(tenant);
  await formation.queue.list(tenant, { states: ['retrying'] });
  await formation.history.list(tenant, id);
  await formation.history.forMemories(tenant, [id, 'm1']);
  await formation.history.orphans(tenant);
}
