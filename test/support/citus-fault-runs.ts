/**
 * Fault runs on a real Citus cluster under a steady read/write load (test/support/write-load.ts),
 * for test/store/citus-faults.test.ts (which asserts on them and prints the counts, quoted in
 * docs/scaling.md): a worker killed or frozen, the coordinator restarted, a worker added and the
 * shards rebalanced online.
 */
import pg from 'pg';
import type { MemoryStore } from '../../src/store/memory-store.js';
import type { CitusCluster } from './citus-cluster.js';
import {
  requestsBetween,
  startLoad,
  tally,
  verifyWrites,
  type LoadOptions,
  type LoadRequest,
  type WriteCheck,
} from './write-load.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Counts of one group of requests, with the slowest failure. */
export interface RequestCounts {
  total: number;
  failed: number;
  codes: Record<string, number>;
  /** Failures not marked retryable. */
  notRetryable: number;
  /** Slowest failed request, ms (0 when none failed). */
  slowestFailureMs: number;
  /** Slowest request, failed or not, ms. */
  slowestMs: number;
  /** A few distinct failure messages (numbers masked), most frequent first. */
  messages: string[];
}

function topMessages(failures: readonly LoadRequest[]): string[] {
  const seen = new Map<string, number>();
  for (const f of failures) {
    const m = `${f.code}: ${(f.message ?? '').replace(/\d+/g, 'N').slice(0, 200)}`;
    seen.set(m, (seen.get(m) ?? 0) + 1);
  }
  return [...seen.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([m, n]) => `${n}× ${m}`);
}

function counts(requests: readonly LoadRequest[]): RequestCounts {
  const failures = requests.filter((r) => !r.ok);
  return {
    ...tally(requests),
    notRetryable: failures.filter((r) => r.retryable !== true).length,
    slowestFailureMs: Math.round(Math.max(0, ...failures.map((r) => r.ms))),
    slowestMs: Math.round(requests.reduce((m, r) => Math.max(m, r.ms), 0)),
    messages: topMessages(failures),
  };
}

/** What a fault run saw and what was stored afterwards. */
export interface FaultReport {
  name: string;
  /** Every request of the run. */
  all: RequestCounts;
  /** Requests started while the fault lasted (from its start until the node is back), hit tenants and others. */
  duringHit: RequestCounts;
  duringOthers: RequestCounts;
  /** Requests started after the fault ended (plus a settle time), every tenant. */
  after: RequestCounts;
  writes: WriteCheck;
  /** Rows stored more than once (count(*) - count(DISTINCT (tenant, id))). */
  duplicates: number;
  /** How long the fault lasted, ms. */
  faultMs: number;
}

/** Port of the node holding `tenant`'s shard of the schema's memories table. */
export async function shardPort(cluster: CitusCluster, schema: string, tenant: string): Promise<number> {
  const rows = await cluster.query<{ port: number }>(
    `SELECT nodeport AS port FROM citus_shards
      WHERE shardid = get_shard_id_for_distribution_column($1::regclass, $2::text)`,
    [`${schema}.engram_memories`, tenant],
  );
  return rows[0]?.port ?? -1;
}

async function duplicatesIn(cluster: CitusCluster, schema: string): Promise<number> {
  const rows = await cluster.query<{ n: number }>(
    `SELECT (count(*) - count(DISTINCT (tenant, id)))::int AS n FROM ${schema}.engram_memories`,
  );
  return rows[0]?.n ?? -1;
}

/** Options of a fault run. */
export interface FaultRunOptions {
  schema: string;
  tenants: readonly string[];
  load?: LoadOptions | undefined;
  /** Load before the fault, ms. @default 500 */
  warmMs?: number | undefined;
  /** How long a node stays down, ms. @default 2500 */
  faultMs?: number | undefined;
  /** Load after the fault, ms; requests in the first `settleMs` of it are not counted in `after`. @default 1500 */
  afterMs?: number | undefined;
  /** @default 500 */
  settleMs?: number | undefined;
}

/**
 * Runs the load, then `fault` (the window of "during" is the time it takes), runs on, stops the
 * load, and checks every write. `hit` are the tenants the fault affects.
 */
async function faultRun(
  name: string,
  store: MemoryStore,
  cluster: CitusCluster,
  options: FaultRunOptions,
  hit: ReadonlySet<string>,
  fault: () => Promise<void>,
): Promise<FaultReport> {
  const load = startLoad(store, options.tenants, options.load);
  await sleep(options.warmMs ?? 500);
  const from = performance.now();
  await fault();
  const to = performance.now();
  await sleep(options.afterMs ?? 1500);
  const requests = await load.stop();
  const during = requestsBetween(requests, from, to, hit);
  const settled = to + (options.settleMs ?? 500);
  return {
    name,
    all: counts(requests),
    duringHit: counts(during.inside),
    duringOthers: counts(during.outside),
    after: counts(requests.filter((r) => r.at >= settled)),
    writes: await verifyWrites(store, requests),
    duplicates: await duplicatesIn(cluster, options.schema),
    faultMs: Math.round(to - from),
  };
}

/** The tenants whose shards live on worker `index`. */
export async function tenantsOnWorker(
  cluster: CitusCluster,
  schema: string,
  tenants: readonly string[],
  index: number,
): Promise<Set<string>> {
  const port = cluster.workers[index]?.port;
  const out = new Set<string>();
  for (const t of tenants) if ((await shardPort(cluster, schema, t)) === port) out.add(t);
  return out;
}

/**
 * Worker `index` killed (SIGKILL: its port refuses connections) or frozen (SIGSTOP on every
 * process: connections hang, as behind a partition) during the load, then brought back.
 */
export async function workerDownRun(
  store: MemoryStore,
  cluster: CitusCluster,
  options: FaultRunOptions & { index: number; mode: 'kill' | 'freeze' },
): Promise<FaultReport & { hitTenants: number }> {
  const hit = await tenantsOnWorker(cluster, options.schema, options.tenants, options.index);
  const worker = cluster.workers[options.index];
  if (worker === undefined) throw new Error(`no worker ${options.index}`);
  const report = await faultRun(
    `worker ${options.mode === 'kill' ? 'killed' : 'frozen'}`,
    store,
    cluster,
    options,
    hit,
    async () => {
      if (options.mode === 'kill') await cluster.stopWorker(options.index, 'kill');
      else worker.pause();
      await sleep(options.faultMs ?? 2500);
      if (options.mode === 'kill') await cluster.startWorker(options.index);
      else worker.resume();
    },
  );
  return { ...report, hitTenants: hit.size };
}

/** The coordinator stopped ('fast' shutdown) during the load and started again on its port. */
export async function coordinatorRestartRun(
  store: MemoryStore,
  cluster: CitusCluster,
  options: FaultRunOptions,
): Promise<FaultReport> {
  return faultRun('coordinator restarted', store, cluster, options, new Set(options.tenants), async () => {
    await cluster.coordinator.stop('fast');
    await sleep(options.faultMs ?? 2500);
    await cluster.coordinator.start();
  });
}

/**
 * A worker added and the shards rebalanced online (logical replication, then a short write
 * lock per shard group at the switch) while the load runs; the "fault" lasts as long as the
 * rebalance. Returns how many shard groups moved onto the new worker.
 */
export async function rebalanceRun(
  store: MemoryStore,
  cluster: CitusCluster,
  options: Omit<FaultRunOptions, 'faultMs'>,
): Promise<FaultReport & { movedToNew: number; rebalanceMs: number }> {
  const added = await cluster.addWorker();
  let rebalanceMs = 0;
  const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
  admin.on('error', () => undefined);
  try {
    const report = await faultRun(
      'worker added, shards rebalanced online',
      store,
      cluster,
      options,
      new Set(options.tenants),
      async () => {
        const start = performance.now();
        await admin.query(`SELECT citus_rebalance_start(shard_transfer_mode => 'auto')`);
        await admin.query(`SELECT citus_rebalance_wait()`);
        rebalanceMs = performance.now() - start;
      },
    );
    const moved = await cluster.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM citus_shards WHERE table_name = $1::regclass AND nodeport = $2`,
      [`${options.schema}.engram_memories`, added.port],
    );
    return { ...report, movedToNew: moved[0]?.n ?? 0, rebalanceMs: Math.round(rebalanceMs) };
  } finally {
    await admin.end();
  }
}
