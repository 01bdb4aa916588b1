/**
 * Faults on a real Citus cluster (a coordinator and two workers on 127.0.0.1) under a steady
 * read/write load (test/support/citus-fault-runs.ts): a worker killed, a worker frozen, the
 * coordinator restarted, a third worker added and the shards rebalanced online, and a
 * distributed deadlock. Requests for the tenants a fault hits fail fast with a retryable code
 * (never hang), the other tenants keep working, clients reconnect by themselves, and afterwards
 * every acknowledged write is stored, none twice. One cluster for the whole file, in this order.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStore, runPg, type PostgresStore } from '../../src/store/postgres/index.js';
import { startCitusCluster, type CitusCluster } from '../support/citus-cluster.js';
import {
  coordinatorRestartRun,
  rebalanceRun,
  shardPort,
  workerDownRun,
  type FaultReport,
} from '../support/citus-fault-runs.js';
import { describeWithPgExtensions } from '../support/pg-extensions.js';
import { makeRecord } from './fixtures/records.js';

const SCHEMA = 'faults';
const TENANTS = Array.from({ length: 24 }, (_, i) => `tenant-${i}`);
/** A request waiting on a frozen node is cancelled after this; the goal is a failure within 2 s. */
const STATEMENT_TIMEOUT_MS = 1000;

let cluster: CitusCluster;
let store: PostgresStore;

function report(run: FaultReport): void {
  const { name, all, duringHit, duringOthers, after, writes, duplicates } = run;
  process.stderr.write(
    `[fault] ${name}: ${all.total} requests, ${all.failed} failed ${JSON.stringify(all.codes)}; during: hit ` +
      `${duringHit.failed}/${duringHit.total} failed (slowest failure ${duringHit.slowestFailureMs} ms, slowest ` +
      `request ${duringHit.slowestMs} ms), others ` +
      `${duringOthers.failed}/${duringOthers.total}; after: ${after.failed}/${after.total}; writes ` +
      `${writes.acknowledged} acknowledged, ${writes.lost.length} lost, ${writes.failedButStored} failed-but-stored, ` +
      `${duplicates} duplicated\n`,
  );
  if (process.env.ENGRAM_FAULT_MESSAGES) for (const m of all.messages) process.stderr.write(`    ${m}\n`);
}

/** What every fault run must show once the fault is over. */
function expectNothingLost(run: FaultReport): void {
  // Every failure, in flight when the fault struck included, says it may be retried.
  expect(run.all.notRetryable, JSON.stringify(run.all.messages)).toBe(0);
  expect(run.writes.acknowledged).toBeGreaterThan(0);
  expect(run.writes.lost).toEqual([]);
  expect(run.duplicates).toBe(0);
  expect(run.after.failed, JSON.stringify(run.after.codes)).toBe(0);
  expect(run.after.total).toBeGreaterThan(0);
}

describeWithPgExtensions('citus faults (coordinator + 2 workers on 127.0.0.1)', ['citus'], () => {
  beforeAll(async () => {
    // synchronous_commit on: an acknowledged commit is in the OS before the worker is killed (the
    // test servers' default, off, would lose the last ~0.5 s of commits to a SIGKILL by design).
    cluster = await startCitusCluster({
      database: 'engram_faults',
      settings: { 'citus.shard_count': 8, synchronous_commit: 'on' },
    });
    store = await createPostgresStore({
      connectionString: cluster.url,
      schema: SCHEMA,
      vector: 'app',
      maxConnections: 8,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    });
    expect(store.topology.name).toBe('citus');
    for (const tenant of TENANTS) await store.insert([makeRecord({ id: 'seed', scope: { tenant } })]);
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it("a killed worker fails only its own tenants' requests, fast and retryable; back, nothing is lost", async () => {
    const run = await workerDownRun(store, cluster, { schema: SCHEMA, tenants: TENANTS, index: 0, mode: 'kill' });
    report(run);
    expect(run.hitTenants).toBeGreaterThan(0);
    expect(run.hitTenants).toBeLessThan(TENANTS.length);
    expect(run.duringHit.failed).toBeGreaterThan(0);
    expect(run.duringHit.codes).toEqual({ STORE_UNAVAILABLE: run.duringHit.failed });
    expect(run.duringHit.notRetryable).toBe(0);
    expect(run.duringHit.slowestFailureMs).toBeLessThan(2000);
    expect(run.duringOthers.failed, JSON.stringify(run.duringOthers.codes)).toBe(0);
    expect(run.duringOthers.total).toBeGreaterThan(0);
    expectNothingLost(run);
  });

  it('a frozen worker (connections hang) fails its tenants with TIMEOUT within 2 s, never a hang', async () => {
    const run = await workerDownRun(store, cluster, {
      schema: SCHEMA,
      tenants: TENANTS,
      index: 1,
      mode: 'freeze',
      faultMs: 3000,
    });
    report(run);
    expect(run.duringHit.failed).toBeGreaterThan(0);
    expect(Object.keys(run.duringHit.codes).every((c) => c === 'TIMEOUT' || c === 'STORE_UNAVAILABLE')).toBe(true);
    expect(run.duringHit.notRetryable).toBe(0);
    expect(run.duringHit.slowestFailureMs).toBeLessThan(2000);
    expect(run.duringOthers.failed, JSON.stringify(run.duringOthers.codes)).toBe(0);
    expectNothingLost(run);
  });

  it('the coordinator restarts: requests fail fast meanwhile, then the same store reconnects by itself', async () => {
    const run = await coordinatorRestartRun(store, cluster, { schema: SCHEMA, tenants: TENANTS, faultMs: 1500 });
    report(run);
    expect(run.duringHit.failed).toBeGreaterThan(0);
    expect(run.duringHit.notRetryable).toBe(0);
    expect(run.duringHit.slowestFailureMs).toBeLessThan(2000);
    expectNothingLost(run);
  });

  it('a third worker joins and the shards are rebalanced online while reads and writes run', async () => {
    const run = await rebalanceRun(store, cluster, { schema: SCHEMA, tenants: TENANTS });
    report(run);
    process.stderr.write(`[fault] rebalance took ${run.rebalanceMs} ms, ${run.movedToNew} shards moved\n`);
    expect(run.movedToNew).toBeGreaterThan(0);
    expect(run.duringHit.total).toBeGreaterThan(0);
    // A shard group's switch blocks its writes while the last changes replicate. On a loaded
    // machine that can outlast the 1 s statement timeout: such a request fails with TIMEOUT
    // (retryable), and nothing else may fail. Unloaded, none does (docs/scaling.md).
    const failures = JSON.stringify(run.all.messages);
    expect(
      Object.keys(run.all.codes).every((c) => c === 'TIMEOUT'),
      failures,
    ).toBe(true);
    expect(run.all.failed, failures).toBeLessThanOrEqual(Math.ceil(run.all.total * 0.005));
    expectNothingLost(run);
  });

  it('a distributed deadlock between two workers is detected and the transaction retried, as on PostgreSQL', async () => {
    // Two tenants whose shards are on different workers.
    const ports = new Map<string, number>();
    for (const t of TENANTS) ports.set(t, await shardPort(cluster, SCHEMA, t));
    const a = TENANTS[0]!;
    const b = TENANTS.find((t) => ports.get(t) !== ports.get(a))!;
    const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
    pool.on('error', () => undefined);
    let retries = 0;
    const touch = (first: string, second: string) =>
      runPg(
        pool,
        'deadlock',
        async (client) => {
          const bump = `UPDATE ${SCHEMA}.engram_memories SET use_count = use_count + 1 WHERE tenant = $1 AND id = 'seed'`;
          await client.query(bump, [first]);
          await new Promise((r) => setTimeout(r, 300));
          await client.query(bump, [second]);
        },
        { transaction: true },
        { retries: 3, onRetry: () => (retries += 1) },
      );
    try {
      const before = await store.get(a, ['seed']);
      await Promise.all([touch(a, b), touch(b, a)]);
      expect(retries).toBeGreaterThanOrEqual(1);
      const after = await store.get(a, ['seed']);
      expect(after[0]!.usage.count).toBe(before[0]!.usage.count + 2);
    } finally {
      await pool.end();
    }
  });
});
