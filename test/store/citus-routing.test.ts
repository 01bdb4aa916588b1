/**
 * Every statement the store sends for one tenant, on a real Citus cluster (coordinator + 2
 * workers on 127.0.0.1), carries the tenant key and is routed to one shard: the test records
 * the store's statements through its pool, then asks the coordinator to EXPLAIN each with the
 * same parameters and requires "Task Count: 1". The one known exception, the batch insert, is
 * named with the reason and checked to behave as described (so the list cannot go stale).
 */
import pg from 'pg';
import { clientQueries } from '../../src/store/postgres/pg-query-runner.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MemoryRecord } from '../../src/store/memory-store.js';
import { distributeSchema } from '../../src/store/postgres/citus-distribution.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { startCitusCluster, type CitusCluster } from '../support/citus-cluster.js';
import { describeWithPgExtensions } from '../support/pg-extensions.js';
import { makeRecord, randomVector, seededRandom } from './fixtures/records.js';

interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Statements that do not EXPLAIN as one task, with why. INSERT … SELECT FROM unnest(…) is planned
 * "pull to coordinator": the coordinator evaluates the unnest and copies each row to its shard
 * (one shard for a one-tenant batch, checked below), but the plan has no task list — and a
 * duplicate key comes back as XX000, not 23505. The engine's Citus dialect should send a
 * multi-row INSERT … VALUES instead (router: one task, 23505 kept).
 */
const KNOWN_NOT_ROUTER: Array<{ match: RegExp; why: string }> = [
  { match: /^INSERT INTO .* SELECT .* FROM unnest\(/s, why: 'INSERT … SELECT FROM unnest(): pull to coordinator' },
];

let cluster: CitusCluster;

/** A pool whose clients record every statement they send. */
function recordingPool(url: string, log: Statement[]): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string') log.push({ sql: args[0], params: Array.isArray(args[1]) ? args[1] : [] });
      return original(...args);
    };
  });
  return pool;
}

/** Statements over the memories table that a per-tenant call sends (not DDL, catalog, or session settings). */
function tenantStatements(log: Statement[]): Statement[] {
  const seen = new Set<string>();
  return log.filter((s) => {
    const sql = s.sql.trim();
    if (!/engram_memories/.test(sql) || /^(CREATE|ALTER|DROP|SET)\b/i.test(sql)) return false;
    if (/pg_attribute|pg_index|pg_class|pg_advisory/.test(sql)) return false;
    if (/GROUP BY 1, 2 ORDER BY 1, 2/.test(sql) && !/tenant =/.test(sql)) return false; // migrate's space listing
    if (seen.has(sql)) return false;
    seen.add(sql);
    return true;
  });
}

/** Runs `sql` again in a rolled-back transaction (after removing the tenant's rows) and counts the shards it wrote to. */
async function shardsWrittenBy(admin: pg.Pool, sql: string, params: unknown[]): Promise<number> {
  const client = await admin.connect();
  const notices: string[] = [];
  client.on('notice', (n) => notices.push(n.message ?? ''));
  try {
    await client.query('BEGIN');
    await client.query(`DELETE FROM routed.engram_memories WHERE tenant = 'acme'`);
    await client.query('SET LOCAL citus.log_remote_commands = on');
    notices.length = 0;
    await client.query(sql, params);
    const shards = new Set(notices.flatMap((m) => [...m.matchAll(/engram_memories_(\d+)/g)].map((x) => x[1])));
    return shards.size;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describeWithPgExtensions('citus: per-tenant routing of the store', ['citus', 'vector'], () => {
  beforeAll(async () => {
    cluster = await startCitusCluster({ database: 'engram_routing' });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('every statement the store makes for one tenant is routed to one shard (EXPLAIN: Task Count: 1)', async () => {
    const log: Statement[] = [];
    const pool = recordingPool(cluster.url, log);
    const schema = 'routed';
    const store = await createPostgresStore({
      pool,
      topology: 'single-node',
      schema,
      vector: 'pgvector',
      exactSearchMaxRows: 20,
    });
    const admin = new pg.Pool({ connectionString: cluster.url, max: 2 });
    admin.on('error', () => undefined);
    try {
      await distributeSchema(clientQueries(admin), schema, { shardCount: 8 });
      const random = seededRandom(31);
      const tenant = 'acme';
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
      await store.insert(records);
      await store.get(tenant, ['m1', 'm2']);
      await store.getVectors(tenant, ['m1', 'm3']);
      await store.update(
        tenant,
        'm4',
        { text: 'tea only', updatedAt: new Date().toISOString() },
        {
          vector: randomVector(random, 8),
          embedding: { model: 'm', dim: 8 },
        },
      );
      const page = await store.list({ scope: { tenant } }, { limit: 5, order: 'updatedAt', direction: 'desc' });
      await store.list(
        { scope: { tenant } },
        { limit: 5, cursor: page.nextCursor ?? undefined, order: 'updatedAt', direction: 'desc' },
      );
      await store.count({ scope: { tenant, user: 'ann' }, tags: ['x'] });
      await store.stats({ scope: { tenant } });
      const q = randomVector(random, 8);
      await store.denseSearch({ filter: { scope: { tenant, user: 'ann' } }, vector: q, model: 'm', limit: 5 }); // HNSW
      await store.denseSearch({ filter: { scope: { tenant }, ids: ['m1', 'm2'] }, vector: q, model: 'm', limit: 5 }); // exact
      await store.lexicalSearch({ filter: { scope: { tenant } }, terms: ['coffee'], limit: 5 });
      await store.lexicalSearch({
        filter: { scope: { tenant } },
        terms: ['tea'],
        limit: 5,
        space: { model: 'm', dim: 8 },
      });
      await store.recordUsage(tenant, ['m1', 'm2'], new Date().toISOString());
      await store.setUsage(tenant, [{ id: 'm1', count: 3, lastUsedAt: null }]);
      await store.delete(tenant, ['m5']);

      const statements = tenantStatements(log);
      expect(statements.length).toBeGreaterThanOrEqual(15);
      // Both dense paths were taken: the HNSW index scan and the exact scan.
      expect(statements.some((s) => /ORDER BY m\.embedding::vector\(8\) <=>/.test(s.sql))).toBe(true);
      expect(statements.some((s) => /ORDER BY m\.embedding <=> \$\d+::vector, m\.id/.test(s.sql))).toBe(true);
      if (process.env.ENGRAM_SHOW_ROUTED)
        for (const s of statements) process.stderr.write(`${s.sql.replace(/\s+/g, ' ').slice(0, 160)}\n`);
      const notRouted: string[] = [];
      const known: Array<{ sql: string; plan: string }> = [];
      for (const s of statements) {
        // The tenant key travels with every statement (a batch insert: in its tenant column).
        const carries = s.params.some(
          (p) => p === tenant || (Array.isArray(p) && p.length > 0 && p.every((x) => x === tenant)),
        );
        expect(carries, s.sql).toBe(true);
        const plan = (await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${s.sql}`, s.params)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        if (KNOWN_NOT_ROUTER.some((k) => k.match.test(s.sql.trim()))) known.push({ sql: s.sql, plan });
        else if (!/Task Count: 1\n/.test(`${plan}\n`)) notRouted.push(`${s.sql}\n${plan}`);
      }
      expect(notRouted).toEqual([]);
      // The known exception behaves as its reason says: no task list, pull to coordinator …
      expect(known).toHaveLength(1);
      expect(known[0]!.plan).toContain('INSERT/SELECT method: pull to coordinator');
      // … and a one-tenant batch is copied to one shard only (the coordinator's remote commands).
      expect(
        await shardsWrittenBy(admin, known[0]!.sql, statements.find((s) => s.sql === known[0]!.sql)!.params),
      ).toEqual(1);
    } finally {
      await store.close();
      await pool.end();
      await admin.end();
    }
  });
});
