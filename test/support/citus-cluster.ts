/**
 * A real Citus cluster for tests and benches: a coordinator and N workers (default 2), each a
 * throwaway PostgreSQL server on a free 127.0.0.1 port (test/support/pg-server.ts: `postgres`
 * user, temp dirs, cleanup on exit), `shared_preload_libraries = citus`, `wal_level = logical`
 * (online shard moves), the database created on every node with `citus` (and `vector` when
 * installed) in it, the coordinator registered (`citus_set_coordinator_host`) and the workers
 * added (`citus_add_node`). Start one per test file and reuse it across tests (about 2–4 s on 2
 * cores; `startupMs` says how long it took). Needs Citus installed (test/support/pg-extensions.ts).
 */
import { pgExec, startPgServer, type PgServer, type PgStopMode } from './pg-server.js';
import { pgExtensionInstalled } from './pg-extensions.js';

/** A running Citus cluster. */
export interface CitusCluster {
  /** Database created on every node. */
  readonly database: string;
  /** The coordinator's URL for {@link database}: what the store connects to. */
  readonly url: string;
  readonly coordinator: PgServer;
  /** Workers in the order they joined (added ones last). */
  readonly workers: readonly PgServer[];
  /** True when pgvector is created on every node. */
  readonly pgvector: boolean;
  /** Wall-clock milliseconds {@link startCitusCluster} took. */
  readonly startupMs: number;
  /** Stops worker `index` ('fast' shutdown by default, 'kill' for a crash); its data stays. */
  stopWorker(index: number, mode?: PgStopMode): Promise<void>;
  /** Starts a stopped worker again on the same port and data. */
  startWorker(index: number): Promise<void>;
  /** Starts one more worker and adds it to the cluster (`citus_add_node`); rebalancing is the caller's. */
  addWorker(): Promise<PgServer>;
  /** Runs one statement on the coordinator (as superuser) in {@link database}. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Stops every node and removes their files. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startCitusCluster}. */
export interface CitusClusterOptions {
  /** @default 'engram_test' */
  database?: string | undefined;
  /** @default 2 */
  workers?: number | undefined;
  /** Create pgvector on every node. @default true when installed */
  pgvector?: boolean | undefined;
  /** Extra server settings for every node. */
  settings?: Record<string, string | number> | undefined;
}

const CITUS_SETTINGS: Record<string, string | number> = {
  shared_preload_libraries: 'citus',
  // Shard moves (rebalancing onto an added worker) use logical replication.
  wal_level: 'logical',
  max_wal_senders: 20,
  max_replication_slots: 20,
  shared_buffers: '64MB',
  // The maintenance daemon and background rebalancer connect to the coordinator itself.
  'citus.local_hostname': '127.0.0.1',
  // Background shard moves are picked up every 5 s by default; tests wait for them.
  'citus.background_task_queue_interval': '100ms',
};

async function startNode(database: string, settings: Record<string, string | number>, vector: boolean) {
  const server = await startPgServer({ settings: { ...CITUS_SETTINGS, ...settings }, label: 'engram-citus-' });
  try {
    await pgExec(server.url('postgres'), `CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    await pgExec(server.url(database), 'CREATE EXTENSION citus');
    if (vector) await pgExec(server.url(database), 'CREATE EXTENSION vector');
    return server;
  } catch (error) {
    await server.destroy();
    throw error;
  }
}

/** Starts a coordinator and `workers` workers on 127.0.0.1 and joins them. */
export async function startCitusCluster(options: CitusClusterOptions = {}): Promise<CitusCluster> {
  const started = performance.now();
  const database = options.database ?? 'engram_test';
  const settings = options.settings ?? {};
  const vector = options.pgvector ?? pgExtensionInstalled('vector');
  const count = options.workers ?? 2;
  const nodes = await Promise.allSettled(
    Array.from({ length: count + 1 }, () => startNode(database, settings, vector)),
  );
  const servers = nodes.flatMap((n) => (n.status === 'fulfilled' ? [n.value] : []));
  const failed = nodes.find((n): n is PromiseRejectedResult => n.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.destroy()));
    throw failed.reason;
  }
  const [coordinator, ...workers] = servers as [PgServer, ...PgServer[]];
  const url = coordinator.url(database);
  const query = async <R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> =>
    (await pgExec(url, sql, params)).rows as R[];
  const stop = async (): Promise<void> => {
    await Promise.all([coordinator, ...workers].map((s) => s.destroy()));
  };
  const add = (server: PgServer): Promise<unknown> =>
    query('SELECT citus_add_node($1, $2)', ['127.0.0.1', server.port]);
  try {
    await query('SELECT citus_set_coordinator_host($1, $2)', ['127.0.0.1', coordinator.port]);
    for (const worker of workers) await add(worker);
  } catch (error) {
    await stop();
    throw error;
  }
  const worker = (index: number): PgServer => {
    const w = workers[index];
    if (w === undefined) throw new Error(`no worker ${index} (the cluster has ${workers.length})`);
    return w;
  };
  return {
    database,
    url,
    coordinator,
    workers,
    pgvector: vector,
    startupMs: performance.now() - started,
    stopWorker: (index, mode) => worker(index).stop(mode),
    startWorker: (index) => worker(index).start(),
    async addWorker() {
      const server = await startNode(database, settings, vector);
      workers.push(server);
      await add(server);
      return server;
    },
    query,
    stop,
  };
}
