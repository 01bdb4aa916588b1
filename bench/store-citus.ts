/**
 * Citus (a coordinator and two workers on this machine) against one PostgreSQL server, side by
 * side in one run, both with pgvector and the store's defaults: LoCoMo turns with their real
 * USE-lite vectors grown to `tenants × per-tenant` rows (bench/lib/locomo-corpus.ts), one scope
 * per tenant, LoCoMo questions as queries, each on a random tenant.
 *
 *   npx tsx bench/store-citus.ts                 # 300 tenants × 1,000, writes a section of bench/RESULTS-postgres.md
 *   npx tsx bench/store-citus.ts --tenants 30 --per-tenant 500 --queries 40 --no-write
 *
 * Measures: Engram.recall p50/p95 at 1 and 16 concurrent clients (and the store's dense search
 * alone at 1), the routing overhead as the Citus / single-server ratio, ingest rows/s (no HNSW
 * index yet, 4 batches of one tenant in flight), the HNSW build over every row, disk bytes per
 * memory (tables and indexes, all shards), and whether both return the same top-5 ids.
 */
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { Engram } from '../src/engram.js';
import type { MemoryStore } from '../src/store/memory-store.js';
import { createPostgresStore, type PostgresStore } from '../src/store/postgres/index.js';
import { pgNames } from '../src/store/postgres/pg-names.js';
import { clientQueries } from '../src/store/postgres/pg-query-runner.js';
import { denseIndexName, ensureDenseIndex } from '../src/store/postgres/pgvector-indexes.js';
import { startCitusCluster } from '../test/support/citus-cluster.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { pgExtensionGate } from '../test/support/pg-extensions.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { lookupEmbedder } from './lib/bench-embedder.js';
import { corpusRecord, DEFAULT_LOCOMO, loadLocomoCorpus, type LocomoCorpus } from './lib/locomo-corpus.js';
import { writeResultsSection } from './lib/results-section.js';
import { fmt, markdownTable, percentile } from './lib/stats.js';
import { mulberry32, normalize } from './lib/synthetic-corpus.js';

const args = parseArgs(
  process.argv.slice(2),
  ['tenants', 'per-tenant', 'queries', 'clients', 'data', 'backends'],
  ['no-write'],
);
/** `--backends single,citus` (default both): which side runs; a side left out shows as –. */
const BACKENDS = new Set((args.values.get('backends') ?? 'single,citus').split(','));
const TENANTS = parseIntList(args.values.get('tenants') ?? '300', 'tenants')[0] as number;
const PER_TENANT = parseIntList(args.values.get('per-tenant') ?? '1000', 'per-tenant')[0] as number;
const QUERIES = parseIntList(args.values.get('queries') ?? '200', 'queries')[0] as number;
const CLIENTS = parseIntList(args.values.get('clients') ?? '1,16', 'clients');
const SIZE = TENANTS * PER_TENANT;
const SCHEMA = 'bench';
// maintenance_work_mem holds a whole HNSW graph while it is built (300k rows × 512 dims is about 1 GB);
// past it pgvector builds on disk, several times slower.
const SETTINGS = { shared_buffers: '512MB', maintenance_work_mem: '2GB', work_mem: '32MB', max_connections: 200 };
/**
 * On Citus each shard's index is built on its own, many at once per worker, and a parallel
 * pgvector build reserves its maintenance_work_mem as shared memory up front: 2 GB per shard
 * build ran this 23 GB machine out of memory. A shard of 300k / 32 rows needs about 30 MB.
 */
const CITUS_MAINTENANCE_WORK_MEM = '256MB';
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const ms = (start: number): number => performance.now() - start;
const tenantOf = (i: number): string => `t${Math.floor(i / PER_TENANT)}`;

interface Query {
  text: string;
  unit: Float32Array;
  tenant: string;
}

/** Inserts every row, one tenant's batch of up to 1,000 per statement, 4 in flight; rows/s. */
async function ingest(store: MemoryStore, c: LocomoCorpus, from: number): Promise<number> {
  const jobs: Array<[number, number]> = [];
  for (let s = from; s < SIZE;) {
    const end = Math.min(SIZE, s + 1000, (Math.floor(s / PER_TENANT) + 1) * PER_TENANT);
    jobs.push([s, end]);
    s = end;
  }
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) {
        const batch = [];
        for (let i = job[0]; i < job[1]; i++) batch.push(corpusRecord(c, i, { tenant: tenantOf(i) }));
        await store.insert(batch);
      }
    }),
  );
  return (SIZE - from) / (ms(start) / 1000);
}

/** One recall run: latencies, the recall's own stage timings, the top-5 ids per query. */
interface RecallRun {
  times: number[];
  stages: { dense: number[]; lexical: number[]; rank: number[] };
  top: Map<number, string[]>;
}

/** Recall latencies with `clients` loops sharing the query list; the top-5 ids per query. */
async function recallRun(engram: Engram, queries: readonly Query[], clients: number): Promise<RecallRun> {
  const times: number[] = [];
  const stages = { dense: [] as number[], lexical: [] as number[], rank: [] as number[] };
  const top = new Map<number, string[]>();
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < queries.length; i = next++) {
        const q = queries[i] as Query;
        const start = performance.now();
        const result = await engram.recall(q.text, { scope: { tenant: q.tenant }, vector: q.unit, limit: 5 });
        times.push(ms(start));
        stages.dense.push(result.timings.denseMs);
        stages.lexical.push(result.timings.lexicalMs);
        stages.rank.push(result.timings.rankMs);
        top.set(
          i,
          result.hits.map((h) => h.memory.id),
        );
      }
    }),
  );
  return { times, top, stages };
}

/** Dense search alone (the store's call recall makes first), one at a time. */
async function denseRun(store: MemoryStore, c: LocomoCorpus, queries: readonly Query[]): Promise<number[]> {
  const times: number[] = [];
  for (const q of queries) {
    const start = performance.now();
    await store.denseSearch({ filter: { scope: { tenant: q.tenant } }, vector: q.unit, model: c.model, limit: 50 });
    times.push(ms(start));
  }
  return times;
}

/** Bytes of the schema's tables and their indexes (every shard on Citus). */
async function diskBytes(pool: pg.Pool, citus: boolean): Promise<number> {
  const names = pgNames(SCHEMA);
  const size = citus ? 'citus_total_relation_size' : 'pg_total_relation_size';
  let total = 0;
  for (const table of names.tenantTables) {
    const r = await pool.query<{ n: string }>(`SELECT ${size}($1::regclass)::text AS n`, [table]);
    total += Number(r.rows[0]?.n ?? 0);
  }
  return total;
}

interface BackendResult {
  name: string;
  ingest: number;
  buildSeconds: number;
  bytesPerMemory: number;
  dense: number[];
  recall: Map<number, RecallRun>;
}

async function runBackend(
  name: string,
  url: string,
  citus: boolean,
  c: LocomoCorpus,
  queries: readonly Query[],
): Promise<BackendResult> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  const store: PostgresStore = await createPostgresStore({
    connectionString: url,
    schema: SCHEMA,
    vector: 'pgvector',
    maxConnections: Math.max(...CLIENTS, 4),
  });
  if (store.topology.name !== (citus ? 'citus' : 'single-node')) throw new Error(`${name}: ${store.topology.name}`);
  try {
    // The first batch creates the space's index (as the store does); it is dropped, the bulk
    // loaded without it, then built over every row (timed).
    const space = { model: c.model, dim: c.corpus.dim };
    const index = denseIndexName(pgNames(SCHEMA).prefix, space);
    await store.insert(Array.from({ length: PER_TENANT }, (_, i) => corpusRecord(c, i, { tenant: tenantOf(i) })));
    await pool.query(`DROP INDEX ${SCHEMA}.${index}`);
    const ingestRate = await ingest(store, c, PER_TENANT);
    log(`${name}: ingest ${ingestRate.toFixed(0)} rows/s`);
    const client = await pool.connect();
    const buildStart = performance.now();
    await client.query('BEGIN');
    await client.query('SET LOCAL statement_timeout = 0');
    await ensureDenseIndex(clientQueries(client), pgNames(SCHEMA), space);
    await client.query('COMMIT');
    client.release();
    const buildSeconds = ms(buildStart) / 1000;
    log(`${name}: HNSW build ${buildSeconds.toFixed(1)} s`);
    for (const table of pgNames(SCHEMA).tenantTables) await pool.query(`VACUUM ANALYZE ${table}`);
    const bytes = await diskBytes(pool, citus);
    const engram = await Engram.open({
      store,
      embedder: lookupEmbedder(c.model, c.corpus.dim, new Map()),
      trackUsage: false,
    });
    await recallRun(engram, queries.slice(0, 20), 4); // warm-up
    const dense = await denseRun(store, c, queries);
    const recall = new Map<number, RecallRun>();
    for (const clients of CLIENTS) {
      const run = await recallRun(engram, queries, clients);
      recall.set(clients, run);
      log(`${name}: recall at ${clients} clients p50 ${fmt(percentile(run.times, 50), 1)} ms`);
    }
    const result = { name, ingest: ingestRate, buildSeconds, bytesPerMemory: bytes / SIZE, dense, recall };
    // One line a later run can be compared with when the two sides ran apart (--backends).
    log(
      `${name}: ${JSON.stringify({
        ingest: ingestRate,
        buildSeconds,
        bytesPerMemory: bytes / SIZE,
        dense: [percentile(dense, 50), percentile(dense, 95)],
        recall: Object.fromEntries(
          [...recall].map(([k, r]) => [k, [percentile(r.times, 50), percentile(r.times, 95)]]),
        ),
        loadAverage: loadavg()[0],
      })}`,
    );
    return result;
  } finally {
    await store.close();
    await pool.end();
  }
}

/** A side that did not run (`--backends`): every figure NaN, printed as –. */
function skipped(name: string): BackendResult {
  return { name, ingest: Number.NaN, buildSeconds: Number.NaN, bytesPerMemory: Number.NaN, dense: [], recall: new Map() };
}

function sameTop(a: BackendResult, b: BackendResult, clients: number): string {
  const x = a.recall.get(clients)?.top ?? new Map<number, string[]>();
  const y = b.recall.get(clients)?.top ?? new Map<number, string[]>();
  let same = 0;
  for (const [i, ids] of x) if (JSON.stringify(ids) === JSON.stringify(y.get(i))) same += 1;
  return `${((same / Math.max(1, x.size)) * 100).toFixed(1)}% of ${x.size}`;
}

function render(
  single: BackendResult,
  citus: BackendResult,
  c0: { model: string; dim: number },
  minutes: number,
  load: [number, number],
): string {
  const p = (values: number[], q: number): string => fmt(percentile(values, q), 1);
  const ratio = (a: number[], b: number[]): string => `${(percentile(b, 50) / percentile(a, 50)).toFixed(2)}×`;
  const rows: string[][] = [];
  for (const clients of CLIENTS) {
    const s = single.recall.get(clients)?.times ?? [];
    const d = citus.recall.get(clients)?.times ?? [];
    rows.push([
      `Engram.recall at ${clients} client${clients === 1 ? '' : 's'} p50 / p95`,
      `${p(s, 50)} / ${p(s, 95)} ms`,
      `${p(d, 50)} / ${p(d, 95)} ms`,
      ratio(s, d),
    ]);
  }
  const stage = (r: BackendResult, k: keyof RecallRun['stages']): string =>
    fmt(percentile(r.recall.get(CLIENTS[0] as number)?.stages[k] ?? [], 50), 1);
  rows.push([
    `recall's own stage p50 at ${CLIENTS[0]} client(s): dense / full-text / rank ms`,
    `${stage(single, 'dense')} / ${stage(single, 'lexical')} / ${stage(single, 'rank')}`,
    `${stage(citus, 'dense')} / ${stage(citus, 'lexical')} / ${stage(citus, 'rank')}`,
    '',
  ]);
  rows.push([
    'dense search alone (limit 50), 1 client, p50 / p95',
    `${p(single.dense, 50)} / ${p(single.dense, 95)} ms`,
    `${p(citus.dense, 50)} / ${p(citus.dense, 95)} ms`,
    ratio(single.dense, citus.dense),
  ]);
  rows.push([
    'ingest (store.insert, 1,000 rows of one tenant per batch, 4 in flight, no HNSW yet)',
    `${Math.round(single.ingest).toLocaleString('en-US')} rows/s`,
    `${Math.round(citus.ingest).toLocaleString('en-US')} rows/s`,
    `${(citus.ingest / single.ingest).toFixed(2)}×`,
  ]);
  rows.push([
    `HNSW build over ${SIZE.toLocaleString('en-US')} rows`,
    `${single.buildSeconds.toFixed(1)} s`,
    `${citus.buildSeconds.toFixed(1)} s`,
    `${(citus.buildSeconds / single.buildSeconds).toFixed(2)}×`,
  ]);
  rows.push([
    'disk per memory (memories, history, jobs: tables + indexes, every shard)',
    `${Math.round(single.bytesPerMemory).toLocaleString('en-US')} B`,
    `${Math.round(citus.bytesPerMemory).toLocaleString('en-US')} B`,
    `${(citus.bytesPerMemory / single.bytesPerMemory).toFixed(2)}×`,
  ]);
  const first = CLIENTS[0] as number;
  return `## Citus vs one PostgreSQL server (bench/store-citus.ts)

Command: \`npx tsx bench/store-citus.ts ${process.argv.slice(2).join(' ')}\` (${new Date().toISOString().slice(0, 16)} UTC,
${cpus().length} cores, Node ${process.version}, load average ${load[0].toFixed(1)} at start and ${load[1].toFixed(1)} at end,
run took ${minutes.toFixed(1)} min).

- Data: the LoCoMo dev turns with their real vectors (${c0.model}, ${c0.dim} dims) grown to ${SIZE.toLocaleString('en-US')} rows
  by perturbed copies, ${TENANTS.toLocaleString('en-US')} tenants × ${PER_TENANT.toLocaleString('en-US')} (one scope each). Queries: ${QUERIES} LoCoMo
  questions with their real vectors, each on a random tenant; \`Engram.recall(text, { scope: { tenant }, vector, limit: 5 })\`
  (default profile: dense pool + corpus full-text channel + fusion), after a warm-up of 20.
- Single: one PostgreSQL 15 + pgvector. Citus: Citus 13.2 coordinator + 2 workers, every Engram table distributed by tenant
  (32 shards, co-located). All on this machine (2 cores for the three servers and the client), fsync off, shared_buffers 512 MB
  per server, maintenance_work_mem 2 GB (Citus: ${CITUS_MAINTENANCE_WORK_MEM} per shard build), same store defaults (pgvector, HNSW m 32 / ef_construction 128; a 1k-row tenant is under the exact/HNSW cut-over,
  so its dense search is an exact scan of the tenant's rows on its shard). Pool of ${Math.max(...CLIENTS, 4)} connections.

${markdownTable(['', 'one server', 'Citus (coordinator + 2 workers)', 'Citus / one server'], rows)}

Same top-5 ids in the same order on both: ${sameTop(single, citus, first)} queries at ${first} client${first === 1 ? '' : 's'}.
`;
}

async function main(): Promise<void> {
  const gate = pgExtensionGate(['vector', 'citus']);
  if (!gate.available) throw new Error(gate.message);
  const runStart = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const c = await loadLocomoCorpus(args.values.get('data') ?? DEFAULT_LOCOMO, SIZE);
  const rand = mulberry32(11);
  const queries: Query[] = c.queries.slice(0, QUERIES).map((q) => ({
    text: q.text,
    unit: normalize(Float32Array.from(q.vector)),
    tenant: `t${Math.floor(rand() * TENANTS)}`,
  }));
  log(`corpus ${SIZE} x ${c.corpus.dim}, ${TENANTS} tenants, ${queries.length} queries`);
  let single: BackendResult = skipped('one server');
  if (BACKENDS.has('single')) {
    const server = await startPgCluster({ database: 'engram_bench', settings: SETTINGS });
    try {
      single = await runBackend('one server', server.url, false, c, queries);
    } finally {
      await server.stop();
    }
  }
  let citus: BackendResult = skipped('citus');
  if (BACKENDS.has('citus')) {
    const cluster = await startCitusCluster({
      database: 'engram_bench',
      settings: {
        ...SETTINGS,
        maintenance_work_mem: CITUS_MAINTENANCE_WORK_MEM,
        'citus.shard_count': 32,
        'citus.max_cached_conns_per_worker': Number(process.env.CONNS ?? 1),
      },
    });
    try {
      citus = await runBackend('citus', cluster.url, true, c, queries);
    } finally {
      await cluster.stop();
    }
  }
  const text = render(single, citus, { model: c.model, dim: c.corpus.dim }, ms(runStart) / 60_000, [
    loadStart,
    loadavg()[0] ?? 0,
  ]);
  process.stdout.write(`${text}\n`);
  if (!args.flags.has('no-write')) {
    const file = new URL('./RESULTS-postgres.md', import.meta.url).pathname;
    writeResultsSection(file, 'store-citus', text);
    log(`wrote ${file}`);
  }
}

await main();
