/**
 * The Citus test cluster's fault and growth handles on a real cluster (test/support/citus-cluster.ts),
 * with the store on a distributed schema: a stopped worker takes down only the tenants whose
 * shards it holds and comes back with every row; a third worker joins and an online rebalance
 * moves shards onto it without losing a row. (The fault runs with write load and timings are
 * the fault suite's and the benches'.)
 */
import pg from 'pg';
import { clientQueries } from '../../src/store/postgres/pg-query-runner.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isEngramError } from '../../src/model/errors.js';
import { distributeSchema } from '../../src/store/postgres/citus-distribution.js';
import { createPostgresStore, type PostgresStore } from '../../src/store/postgres/index.js';
import { startCitusCluster, type CitusCluster } from '../support/citus-cluster.js';
import { describeWithPgExtensions } from '../support/pg-extensions.js';
import { makeRecord } from './fixtures/records.js';

let cluster: CitusCluster;
let store: PostgresStore;
const TENANTS = Array.from({ length: 24 }, (_, i) => `tenant-${i}`);

/** Port of the worker holding `tenant`'s shard of the memories table. */
async function portOf(tenant: string): Promise<number> {
  const rows = await cluster.query<{ port: number }>(
    `SELECT nodeport AS port FROM citus_shards
      WHERE shardid = get_shard_id_for_distribution_column('faults.engram_memories', $1::text)`,
    [tenant],
  );
  return rows[0]!.port;
}

describeWithPgExtensions('citus cluster: stop a worker, add a worker', ['citus'], () => {
  beforeAll(async () => {
    cluster = await startCitusCluster({ database: 'engram_cluster' });
    store = await createPostgresStore({
      connectionString: cluster.url,
      topology: 'single-node',
      schema: 'faults',
      vector: 'app',
      maxConnections: 4,
      retry: { retries: 1, baseMs: 10 },
    });
    const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
    await distributeSchema(clientQueries(admin), 'faults', { shardCount: 8 });
    await admin.end();
    for (const tenant of TENANTS) {
      await store.insert(Array.from({ length: 5 }, (_, i) => makeRecord({ id: `m${i}`, scope: { tenant } })));
    }
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it("a stopped worker fails only its own tenants' requests; restarted, every row is back", async () => {
    const down = cluster.workers[0]!;
    const ports = new Map<string, number>();
    for (const t of TENANTS) ports.set(t, await portOf(t));
    const onDown = TENANTS.filter((t) => ports.get(t) === down.port);
    const onUp = TENANTS.filter((t) => ports.get(t) !== down.port);
    expect(onDown.length).toBeGreaterThan(0);
    expect(onUp.length).toBeGreaterThan(0);

    await cluster.stopWorker(0, 'kill');
    expect(down.running).toBe(false);
    for (const t of onUp) expect(await store.count({ scope: { tenant: t } })).toBe(5);
    const error = await store.count({ scope: { tenant: onDown[0]! } }).catch((e: unknown) => e);
    expect(isEngramError(error, 'STORE_ERROR'), String(error)).toBe(true);

    await cluster.startWorker(0);
    expect(down.running).toBe(true);
    for (const t of TENANTS) expect(await store.count({ scope: { tenant: t } })).toBe(5);
  });

  it('a third worker joins and an online rebalance moves shards onto it; no row is lost', async () => {
    const before = await cluster.query<{ n: number }>(`SELECT count(*)::int AS n FROM faults.engram_memories`);
    const added = await cluster.addWorker();
    expect(cluster.workers).toHaveLength(3);
    await cluster.query(`SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical')`);
    await cluster.query(`SELECT citus_rebalance_wait()`);
    const onNew = await cluster.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM citus_shards WHERE table_name::text = 'faults.engram_memories' AND nodeport = $1`,
      [added.port],
    );
    expect(onNew[0]!.n).toBeGreaterThan(0);
    const after = await cluster.query<{ n: number }>(`SELECT count(*)::int AS n FROM faults.engram_memories`);
    expect(after[0]!.n).toBe(before[0]!.n);
    for (const t of TENANTS) expect((await store.get(t, ['m0', 'm4'])).map((m) => m.id)).toEqual(['m0', 'm4']);
  });
});
