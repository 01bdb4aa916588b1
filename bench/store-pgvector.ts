/**
 * pgvector on PostgreSQL vs app-side scoring, side by side in one run, on real embeddings:
 * LoCoMo turns with their USE-lite vectors grown to 100k rows in ONE scope (perturbed copies,
 * bench/lib/synthetic-corpus.ts), LoCoMo questions as queries.
 *
 *   npx tsx bench/store-pgvector.ts                       # 100k, writes a section of bench/RESULTS-postgres.md
 *   npx tsx bench/store-pgvector.ts --size 20000 --queries 50 --no-write
 *   npx tsx bench/store-pgvector.ts --data ../shared/data/locomo-dev.json
 *
 * Measures: dense search p50/p95 (recall's pool: limit 50, and limit 10) through the store,
 * pgvector (HNSW, iterative scans, exact re-score) vs app-side exact scoring; top-10 equal to the
 * exact scan (ties within 1e-6 allowed); Engram.recall end to end; ingest rows/s with the index
 * maintained; HNSW build time; disk bytes per row; the exact/HNSW cut-over (users of growing size
 * inside the 100k tenant, both paths forced); ef_search against exactness; the 2,760 real turns
 * alone with HNSW forced. Starts its own PostgreSQL 15 server (needs pgvector installed).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { clientQueries } from '../src/store/postgres/pg-query-runner.js';
import { Engram } from '../src/engram.js';
import type { MemoryStore } from '../src/store/memory-store.js';
import { createPostgresStore } from '../src/store/postgres/index.js';
import { pgNames } from '../src/store/postgres/pg-names.js';
import {
  DEFAULT_EF_SEARCH,
  FETCH_MARGIN,
  pgvectorDenseSearch,
  type PgVectorSearchTuning,
} from '../src/store/postgres/pgvector-dense.js';
import {
  denseIndexName,
  detectPgVector,
  ensureDenseIndex,
  HNSW_BUILD_DEFAULTS,
  type HnswBuildOptions,
} from '../src/store/postgres/pgvector-indexes.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { pgExtensionGate } from '../test/support/pg-extensions.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { lookupEmbedder } from './lib/bench-embedder.js';
import { exactTopK, sameTopK } from './lib/exact-scan.js';
import { corpusRecord, DEFAULT_LOCOMO, loadLocomoCorpus, type LocomoCorpus } from './lib/locomo-corpus.js';
import { writeResultsSection } from './lib/results-section.js';
import { fmt, markdownTable, percentile } from './lib/stats.js';
import { mulberry32, normalize } from './lib/synthetic-corpus.js';

const args = parseArgs(
  process.argv.slice(2),
  ['size', 'queries', 'app-queries', 'users', 'ef', 'builds', 'data', 'save-data', 'from-data', 'phases', 'store-ef'],
  ['no-write'],
);
/**
 * Which measurements run after the load (all by default): `dense` (store dense search, exactness),
 * `recall` (Engram.recall end to end), `cutover`, `ef`, `builds`, `real`. With `--from-data` the
 * load is skipped, so a short `--phases dense,recall` run can measure on a quiet machine.
 */
const PHASES = new Set(
  (args.values.get('phases') ?? 'dense,recall,cutover,ef,builds,real').split(',').filter((p) => p !== '' && p !== 'none'),
);
for (const p of PHASES)
  if (!['dense', 'recall', 'cutover', 'ef', 'builds', 'real'].includes(p)) throw new Error(`--phases: unknown ${p}`);
/** `hnsw.ef_search` of the pgvector store the dense and recall phases use. @default the store's */
const STORE_EF = args.values.has('store-ef') ? parseIntList(args.values.get('store-ef') as string, 'store-ef')[0] : undefined;
/** After the load, save the server's data dir here (and its load figures in `<dir>.json`). */
const SAVE_DATA = args.values.get('save-data');
/** Start from a data dir saved by `--save-data` (same --size and --users) instead of loading. */
const FROM_DATA = args.values.get('from-data');
const SIZE = parseIntList(args.values.get('size') ?? '100000', 'size')[0] as number;
const QUERIES = parseIntList(args.values.get('queries') ?? '200', 'queries')[0] as number;
const APP_QUERIES = args.values.get('app-queries') === '0' ? 0 : (parseIntList(args.values.get('app-queries') ?? '20', 'app-queries')[0] as number);
const USER_SIZES = parseIntList(args.values.get('users') ?? '500,1000,2000,5000,10000,20000', 'users');
const EF_SWEEP = parseIntList(args.values.get('ef') ?? '40,100,200,400,1000', 'ef');
/** Other HNSW build parameters (m:ef_construction) rebuilt and measured at the end. */
const BUILDS = (args.values.get('builds') ?? '16:64,24:100')
  .split(',')
  .filter((b) => b !== '')
  .map((b) => {
    const [m, efc] = b.split(':').map(Number);
    if (!Number.isInteger(m) || !Number.isInteger(efc)) throw new Error(`--builds: ${b} is not m:ef_construction`);
    return { m: m as number, efConstruction: efc as number };
  });
const TENANT = 'bench';
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const ms = (start: number): number => performance.now() - start;

/** Row i's user: the users of USER_SIZES get that many random rows, the rest is 'crowd'. */
function assignUsers(size: number): string[] {
  const rand = mulberry32(3);
  const order = Array.from({ length: size }, (_, i) => i).sort(() => rand() - 0.5);
  const users = new Array<string>(size).fill('crowd');
  let next = 0;
  for (const n of USER_SIZES) for (let k = 0; k < n && next < size; k++) users[order[next++] as number] = `u${n}`;
  return users;
}

/** Inserts corpus rows [from, to) in batches of 1,000, 4 in flight; returns rows/s. */
async function ingest(store: MemoryStore, c: LocomoCorpus, users: string[], from: number, to: number): Promise<number> {
  const jobs: number[] = [];
  for (let s = from; s < to; s += 1000) jobs.push(s);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let s = jobs.shift(); s !== undefined; s = jobs.shift()) {
        const batch = [];
        for (let i = s; i < Math.min(to, s + 1000); i++)
          batch.push(corpusRecord(c, i, { tenant: TENANT, user: users[i] }));
        await store.insert(batch);
      }
    }),
  );
  return (to - from) / (ms(start) / 1000);
}

/** What the load measured (saved beside a `--save-data` dir for the runs that reuse it). */
interface LoadFigures {
  size: number;
  bulkIngest: number;
  maintainedIngest: number;
  appIngest: number;
  buildSeconds: number;
  pgvSize: { table: number; indexes: number; hnsw: number };
  appSize: { table: number; indexes: number; hnsw: number };
  /** When the load ran (UTC, minutes) and the load averages at its start and end. */
  loadedAt: string;
  loadAverages: [number, number];
}

const NO_LOAD: LoadFigures = {
  size: Number.NaN,
  bulkIngest: Number.NaN,
  maintainedIngest: Number.NaN,
  appIngest: Number.NaN,
  buildSeconds: Number.NaN,
  pgvSize: { table: Number.NaN, indexes: Number.NaN, hnsw: Number.NaN },
  appSize: { table: Number.NaN, indexes: Number.NaN, hnsw: Number.NaN },
  loadedAt: '?',
  loadAverages: [Number.NaN, Number.NaN],
};

/** The throwaway server's settings (docs/scaling.md says what an operator should set). */
const SERVER_SETTINGS = { shared_buffers: '1GB', maintenance_work_mem: '1GB', work_mem: '64MB' };

/** Reads relations (and their TOAST tables) into shared_buffers. */
async function prewarm(pool: pg.Pool, relations: string[]): Promise<void> {
  await pool.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
  for (const rel of relations) {
    await pool.query(
      `SELECT pg_prewarm($1::regclass),
              (SELECT pg_prewarm(reltoastrelid) FROM pg_class WHERE oid = $1::regclass AND reltoastrelid <> 0)`,
      [rel],
    );
  }
}

type ExactScan = (q: Float32Array, k: number) => Array<{ id: string; score: number }>;

/** The exact scan over corpus rows `rows` (unit vectors): a unit query's top-k ids and scores. */
function exactOver(c: LocomoCorpus, rows: number[]): ExactScan {
  const dim = c.corpus.dim;
  const whole = rows.length === c.corpus.size;
  const matrix = whole ? c.corpus.matrix : new Float32Array(rows.length * dim);
  if (!whole) rows.forEach((r, j) => matrix.set(c.corpus.row(r), j * dim));
  return (q, k) => exactTopK(matrix, dim, q, k).map((e) => ({ id: `m${rows[e.index] as number}`, score: e.score }));
}

interface Timing {
  p50: number;
  p95: number;
  exact: number;
  paths: string;
}

function summarise(times: number[], equal: boolean[], paths: string[]): Timing {
  const counts = new Map<string, number>();
  for (const p of paths) counts.set(p, (counts.get(p) ?? 0) + 1);
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    exact: equal.filter(Boolean).length / Math.max(1, equal.length),
    paths: [...counts].map(([p, n]) => `${p} ${n}`).join(', '),
  };
}

/** Runs the module's search directly (one transaction per query) over one user's rows or the tenant. */
async function moduleRuns(
  pool: pg.Pool,
  schema: string,
  c: LocomoCorpus,
  scope: { user?: string; rows: number[] },
  queries: Float32Array[],
  tuning: PgVectorSearchTuning,
): Promise<Timing> {
  const names = pgNames(schema);
  const client = await pool.connect();
  const caps = await detectPgVector(clientQueries(client));
  const exact = exactOver(c, scope.rows);
  const times: number[] = [];
  const equal: boolean[] = [];
  const paths: string[] = [];
  try {
    for (const q of queries) {
      const where = scope.user === undefined ? 'tenant = $1' : 'tenant = $1 AND user_id = $2';
      const params = scope.user === undefined ? [TENANT] : [TENANT, scope.user];
      const start = performance.now();
      await client.query('BEGIN');
      const result = await pgvectorDenseSearch(
        clientQueries(client),
        names,
        caps,
        { where, params, space: { model: c.model, dim: c.corpus.dim }, vector: q, limit: 10 },
        tuning,
      );
      await client.query('COMMIT');
      times.push(ms(start));
      paths.push(result.path);
      equal.push(
        sameTopK(
          result.candidates.map((x) => x.id),
          exact(q, 10),
        ),
      );
    }
  } finally {
    client.release();
  }
  return summarise(times, equal, paths);
}

/**
 * Where the exact and HNSW p50 lines cross (log-linear interpolation between the measured user
 * sizes), and the cut-over ratio a/b = S² / (fetch · P) it implies (pgvector-dense.ts).
 */
function crossover(
  points: Array<{ n: number; exact: number; hnsw: number }>,
  fetch: number,
  partition: number,
): string {
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const da = a.exact - a.hnsw;
    const db = b.exact - b.hnsw;
    if (da <= 0 && db > 0) {
      const t = -da / (db - da);
      const s = Math.exp(Math.log(a.n) + t * (Math.log(b.n) - Math.log(a.n)));
      return `Measured crossing: exact and HNSW p50 meet at about ${Math.round(s).toLocaleString('en-US')} rows, i.e. a cut-over ratio a/b = S²/(fetch·P) = ${((s * s) / (fetch * partition)).toFixed(2)} (fetch ${fetch}, P ${partition.toLocaleString('en-US')}); the module's default is 2.3.`;
    }
  }
  return 'Measured crossing: the exact and HNSW p50 lines did not cross within the measured user sizes.';
}

async function tableSizes(pool: pg.Pool, schema: string, index?: string) {
  const r = await pool.query<{ table: string; indexes: string; hnsw: string | null }>(
    `SELECT pg_table_size($1::regclass)::text AS table, pg_indexes_size($1::regclass)::text AS indexes,
            (SELECT pg_relation_size(to_regclass($2)))::text AS hnsw`,
    [`${schema}.engram_memories`, index === undefined ? null : `${schema}.${index}`],
  );
  const row = r.rows[0]!;
  return { table: Number(row.table), indexes: Number(row.indexes), hnsw: row.hnsw === null ? 0 : Number(row.hnsw) };
}

async function main(): Promise<void> {
  const gate = pgExtensionGate(['vector']);
  if (!gate.available) throw new Error(gate.message);
  const runStart = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const c = await loadLocomoCorpus(args.values.get('data') ?? DEFAULT_LOCOMO, SIZE);
  const queries = c.queries
    .slice(0, QUERIES)
    .map((q) => ({ text: q.text, unit: normalize(Float32Array.from(q.vector)) }));
  const users = assignUsers(SIZE);
  const allRows = Array.from({ length: SIZE }, (_, i) => i);
  log(`corpus ${SIZE} x ${c.corpus.dim} (${c.corpus.realItems} real turns), ${queries.length} queries`);

  const cluster = await startPgCluster({
    database: 'engram_bench',
    settings: SERVER_SETTINGS,
    from: FROM_DATA,
  });
  let pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
  pool.on('error', () => undefined); // idle clients when the server stops
  const out: string[] = [];
  try {
    const names = pgNames('pgv');
    const space = { model: c.model, dim: c.corpus.dim };
    const index = denseIndexName(names.prefix, space);
    const tail = Math.min(5000, Math.floor(SIZE / 10));
    const rebuild = async (options: HnswBuildOptions = {}): Promise<number> => {
      await pool.query(`DROP INDEX IF EXISTS pgv.${index}`);
      const client = await pool.connect();
      const buildStart = performance.now();
      await client.query('BEGIN');
      await ensureDenseIndex(clientQueries(client), names, space, options);
      await client.query('COMMIT');
      client.release();
      return ms(buildStart) / 1000;
    };
    let load: LoadFigures;
    let pgv: MemoryStore;
    let app: MemoryStore;
    if (FROM_DATA === undefined) {
      // --- ingest. pgvector: the first batch creates the space's index (as the store does); it is
      // dropped, the bulk loaded without it, built over the loaded rows (timed), and the last rows
      // inserted with the index maintained (timed). App-side: every row. ---
      pgv = await createPostgresStore({ connectionString: cluster.url, schema: 'pgv', vector: 'pgvector', hnsw: { efSearch: STORE_EF } });
      await ingest(pgv, c, users, 0, 1000);
      await pool.query(`DROP INDEX pgv.${index}`);
      const bulkIngest = await ingest(pgv, c, users, 1000, SIZE - tail);
      const buildSeconds = await rebuild();
      log(`hnsw build ${buildSeconds.toFixed(1)} s over ${SIZE - tail} rows`);
      const maintainedIngest = await ingest(pgv, c, users, SIZE - tail, SIZE);
      log(`pgvector ingest: ${bulkIngest.toFixed(0)} rows/s without the index, ${maintainedIngest.toFixed(0)} with it`);
      app = await createPostgresStore({ connectionString: cluster.url, schema: 'app', vector: 'app' });
      const appIngest = await ingest(app, c, users, 0, SIZE);
      log(`app-side ingest ${appIngest.toFixed(0)} rows/s`);
      await pool.query('VACUUM ANALYZE pgv.engram_memories');
      await pool.query('VACUUM ANALYZE app.engram_memories');
      load = {
        size: SIZE,
        bulkIngest,
        maintainedIngest,
        appIngest,
        buildSeconds,
        pgvSize: await tableSizes(pool, 'pgv', index),
        appSize: await tableSizes(pool, 'app'),
        loadedAt: new Date().toISOString().slice(0, 16),
        loadAverages: [loadStart, loadavg()[0] ?? 0],
      };
      if (SAVE_DATA !== undefined) {
        await pgv.close();
        await app.close();
        await pool.end();
        await cluster.server.saveData(SAVE_DATA);
        writeFileSync(`${SAVE_DATA}.json`, JSON.stringify(load, null, 2));
        log(`saved the loaded server's data dir to ${SAVE_DATA}`);
        pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
        pool.on('error', () => undefined);
        pgv = await createPostgresStore({ connectionString: cluster.url, schema: 'pgv', vector: 'pgvector', hnsw: { efSearch: STORE_EF } });
        app = await createPostgresStore({ connectionString: cluster.url, schema: 'app', vector: 'app' });
      }
    } else {
      const saved = `${FROM_DATA}.json`;
      load = existsSync(saved) ? (JSON.parse(readFileSync(saved, 'utf8')) as LoadFigures) : NO_LOAD;
      if (load !== NO_LOAD && load.size !== SIZE) throw new Error(`${FROM_DATA} holds ${load.size} rows, not --size ${SIZE}`);
      pgv = await createPostgresStore({ connectionString: cluster.url, schema: 'pgv', vector: 'pgvector', hnsw: { efSearch: STORE_EF } });
      app = await createPostgresStore({ connectionString: cluster.url, schema: 'app', vector: 'app' });
    }
    // A restarted server starts cold: read the table (with its TOAST) and the HNSW index into
    // shared_buffers, as a long-running server holds them, before measuring.
    if (FROM_DATA !== undefined || SAVE_DATA !== undefined) await prewarm(pool, ['pgv.engram_memories', `pgv.${index}`]);
    const { bulkIngest, maintainedIngest, appIngest, buildSeconds, pgvSize, appSize } = load;

    // --- the store's dense search over the whole 100k scope, interleaved ---
    const scope = { tenant: TENANT };
    const dense = async (store: MemoryStore, q: Float32Array, limit: number) => {
      const start = performance.now();
      const got = await store.denseSearch({ filter: { scope }, vector: q, model: c.model, limit });
      return { ms: ms(start), ids: got.map((g) => g.id) };
    };
    if (PHASES.has('dense')) for (const q of queries.slice(0, 10)) await dense(pgv, q.unit, 50); // warm-up
    const t = { pgv50: [] as number[], pgv10: [] as number[], app50: [] as number[], app10: [] as number[] };
    const equal10: boolean[] = [];
    const pool50: number[] = [];
    const exactAll = exactOver(c, allRows);
    for (const [i, q] of PHASES.has('dense') ? queries.entries() : []) {
      const exact50 = exactAll(q.unit, 50);
      const a = await dense(pgv, q.unit, 50);
      const b = await dense(pgv, q.unit, 10);
      t.pgv50.push(a.ms);
      t.pgv10.push(b.ms);
      equal10.push(sameTopK(b.ids, exact50.slice(0, 10)));
      const want = new Set(exact50.map((e) => e.id));
      pool50.push(a.ids.filter((id) => want.has(id)).length / 50);
      if (i < APP_QUERIES) {
        t.app50.push((await dense(app, q.unit, 50)).ms);
        t.app10.push((await dense(app, q.unit, 10)).ms);
      }
    }
    log(`dense p50: pgvector ${fmt(percentile(t.pgv50, 50), 1)} ms, app ${fmt(percentile(t.app50, 50), 1)} ms`);

    // --- Engram.recall end to end (dense pool + corpus full-text channel + fusion) ---
    const recallTimes = async (store: MemoryStore, n: number): Promise<number[]> => {
      const engram = await Engram.open({
        store,
        embedder: lookupEmbedder(c.model, c.corpus.dim, new Map()),
        trackUsage: false,
      });
      const times: number[] = [];
      const stages = { dense: [] as number[], lexical: [] as number[], rank: [] as number[] };
      for (const q of queries.slice(0, Math.min(10, n))) await engram.recall(q.text, { scope, vector: q.unit, limit: 5 }); // warm-up
      for (const q of queries.slice(0, n)) {
        const start = performance.now();
        const r = await engram.recall(q.text, { scope, vector: q.unit, limit: 5 });
        times.push(ms(start));
        stages.dense.push(r.timings.denseMs);
        stages.lexical.push(r.timings.lexicalMs);
        stages.rank.push(r.timings.rankMs);
      }
      const p50 = (v: number[]): string => fmt(percentile(v, 50), 1);
      log(`recall stages p50: dense ${p50(stages.dense)} / full-text ${p50(stages.lexical)} / rank ${p50(stages.rank)} ms`);
      return times;
    };
    const recalling = PHASES.has('recall');
    const recallPgv = recalling ? await recallTimes(pgv, queries.length) : [];
    const recallApp = recalling && APP_QUERIES > 0 ? await recallTimes(app, Math.min(APP_QUERIES, queries.length)) : [];
    log(`recall p50 / p95: pgvector ${fmt(percentile(recallPgv, 50), 1)} / ${fmt(percentile(recallPgv, 95), 1)} ms`);

    // --- cut-over: users of growing size inside the 100k tenant, each path forced ---
    const cut: string[][] = [];
    const crossing: Array<{ n: number; exact: number; hnsw: number }> = [];
    const cutQueries = queries.slice(0, Math.min(40, queries.length)).map((q) => q.unit);
    for (const n of PHASES.has('cutover') ? USER_SIZES : []) {
      const rows = allRows.filter((i) => users[i] === `u${n}`);
      const exact = await moduleRuns(pool, 'pgv', c, { user: `u${n}`, rows }, cutQueries, { exactMaxRows: 1e9 });
      const hnsw = await moduleRuns(pool, 'pgv', c, { user: `u${n}`, rows }, cutQueries, { exactMaxRows: 0 });
      const picked = await moduleRuns(pool, 'pgv', c, { user: `u${n}`, rows }, cutQueries, {});
      crossing.push({ n, exact: exact.p50, hnsw: hnsw.p50 });
      cut.push([
        n.toLocaleString('en-US'),
        fmt(exact.p50, 1),
        fmt(hnsw.p50, 1),
        fmt(hnsw.p95, 1),
        `${(hnsw.exact * 100).toFixed(0)}%`,
        hnsw.paths,
        `${picked.paths} (${fmt(picked.p50, 1)} ms, ${(picked.exact * 100).toFixed(0)}% exact)`,
      ]);
      log(`user of ${n}: exact ${fmt(exact.p50, 1)} ms, hnsw ${fmt(hnsw.p50, 1)} ms (${hnsw.paths})`);
    }

    // --- ef_search against exactness, whole tenant ---
    const sweep: string[][] = [];
    const efQueries = queries.map((q) => q.unit);
    for (const ef of PHASES.has('ef') ? EF_SWEEP : []) {
      const r = await moduleRuns(pool, 'pgv', c, { rows: allRows }, efQueries, { exactMaxRows: 0, efSearch: ef });
      log(`ef_search ${ef}: p50 ${fmt(r.p50, 1)} ms, top-10 exact ${(r.exact * 100).toFixed(1)}%`);
      sweep.push([String(ef), fmt(r.p50, 1), fmt(r.p95, 1), `${(r.exact * 100).toFixed(1)}%`]);
    }

    // --- other build parameters: rebuilt, HNSW forced over the tenant, at every swept ef_search
    // (a better graph may reach the same exactness at a smaller ef_search, i.e. a cheaper walk) ---
    const builds: string[][] = [];
    const efCells = async (): Promise<string[]> => {
      const cells: string[] = [];
      for (const ef of EF_SWEEP) {
        const r = await moduleRuns(pool, 'pgv', c, { rows: allRows }, efQueries, { exactMaxRows: 0, efSearch: ef });
        cells.push(`${fmt(r.p50, 1)} ms, ${(r.exact * 100).toFixed(1)}%`);
      }
      return cells;
    };
    if (PHASES.has('builds')) {
      builds.push([
        `${HNSW_BUILD_DEFAULTS.m} / ${HNSW_BUILD_DEFAULTS.efConstruction} (default)`,
        `${fmt(buildSeconds, 1)} (over ${(SIZE - tail).toLocaleString('en-US')} rows)`,
        ...(await efCells()),
      ]);
      log(`build default: ${builds.at(-1)?.join(' | ')}`);
    }
    for (const b of PHASES.has('builds') ? BUILDS : []) {
      const seconds = await rebuild(b);
      builds.push([`${b.m} / ${b.efConstruction}`, seconds.toFixed(1), ...(await efCells())]);
      log(`build m ${b.m} efc ${b.efConstruction}: ${builds.at(-1)?.join(' | ')}`);
    }

    // --- the real turns alone (no perturbed copies), HNSW forced ---
    const realSchema = 'real';
    const realRows = allRows.slice(0, c.corpus.realItems);
    const realQueries = c.queries.map((q) => normalize(Float32Array.from(q.vector)));
    let realRun: Timing = { p50: Number.NaN, p95: Number.NaN, exact: Number.NaN, paths: '' };
    if (PHASES.has('real')) {
      const real = await createPostgresStore({ connectionString: cluster.url, schema: realSchema, vector: 'pgvector' });
      await real.insert(realRows.map((i) => corpusRecord(c, i, { tenant: TENANT })));
      await real.close();
      realRun = await moduleRuns(pool, realSchema, c, { rows: realRows }, realQueries, { exactMaxRows: 0 });
    }

    await pgv.close();
    await app.close();
    const minutes = ms(runStart) / 60_000;
    const perRow = (bytes: number): string => Math.round(bytes / SIZE).toLocaleString('en-US');
    out.push(`## pgvector vs app-side scoring (bench/store-pgvector.ts)

Command: \`npx tsx bench/store-pgvector.ts ${process.argv.slice(2).join(' ')}\` (${new Date().toISOString().slice(0, 16)} UTC,
${cpus().length} cores, Node ${process.version}, load average ${loadStart.toFixed(1)} at start and ${(loadavg()[0] ?? 0).toFixed(1)} at end,
run took ${minutes.toFixed(1)} min${FROM_DATA === undefined ? '' : `; the data loaded at ${load.loadedAt} UTC, load average ${fmt(load.loadAverages[0], 1)}–${fmt(load.loadAverages[1], 1)}, saved and restarted, table and index prewarmed`}${STORE_EF === undefined ? '' : `; store ef_search ${STORE_EF}`}).

- Data: the ${c.corpus.realItems.toLocaleString('en-US')} LoCoMo dev turns with their real ${c.model} vectors (${c.corpus.dim} dims), grown to
  ${SIZE.toLocaleString('en-US')} rows in ONE scope (tenant \`${TENANT}\`) by perturbed copies (vector + Gaussian noise, ‖noise‖ ≈ 0.6,
  re-normalised; bench/lib/synthetic-corpus.ts). Queries: LoCoMo questions (categories 1–4) with their real vectors.
- Server: PostgreSQL 15 + pgvector started by the bench (fsync off, shared_buffers 1 GB, maintenance_work_mem 1 GB),
  over TCP on 127.0.0.1. pgvector path = the store with its defaults (src/store/postgres/pgvector-dense.ts):
  HNSW (m ${HNSW_BUILD_DEFAULTS.m}, ef_construction ${HNSW_BUILD_DEFAULTS.efConstruction}, vector_cosine_ops) per (model, dim), iterative scans,
  ef_search max(${STORE_EF ?? DEFAULT_EF_SEARCH}, fetch), fetch limit + ${FETCH_MARGIN} (the index holds the float32 vectors), exact re-score, exact scan below the cut-over.
  App-side = the same store with \`vector: 'app'\` (every vector of the scope read and scored in Node).
- Exact = the top-10 has the same ids as an exact scan over the same rows (ties with the 10th within 1e-6 allowed).

| | pgvector (HNSW) | app-side exact | ratio |
| --- | --- | --- | --- |
| dense search p50 / p95, limit 50 (recall's pool) | ${fmt(percentile(t.pgv50, 50), 1)} / ${fmt(percentile(t.pgv50, 95), 1)} ms | ${fmt(percentile(t.app50, 50), 1)} / ${fmt(percentile(t.app50, 95), 1)} ms | ${(percentile(t.app50, 50) / percentile(t.pgv50, 50)).toFixed(0)}× |
| dense search p50 / p95, limit 10 | ${fmt(percentile(t.pgv10, 50), 1)} / ${fmt(percentile(t.pgv10, 95), 1)} ms | ${fmt(percentile(t.app10, 50), 1)} / ${fmt(percentile(t.app10, 95), 1)} ms | ${(percentile(t.app10, 50) / percentile(t.pgv10, 50)).toFixed(0)}× |
| top-10 equal to exact | ${((equal10.filter(Boolean).length / equal10.length) * 100).toFixed(1)}% of ${equal10.length} queries | 100% (exact) | |
| pool of 50: share of the exact top-50 found | ${((pool50.reduce((a, b) => a + b, 0) / pool50.length) * 100).toFixed(1)}% | 100% | |
| Engram.recall p50 / p95 (limit 5, dense + full-text + fusion) | ${fmt(percentile(recallPgv, 50), 1)} / ${fmt(percentile(recallPgv, 95), 1)} ms (${recallPgv.length} q) | ${fmt(percentile(recallApp, 50), 1)} / ${fmt(percentile(recallApp, 95), 1)} ms (${recallApp.length} q) | ${(percentile(recallApp, 50) / percentile(recallPgv, 50)).toFixed(1)}× |
| ingest (store.insert, 1,000 per batch, 4 in flight), no HNSW index yet | ${Math.round(bulkIngest).toLocaleString('en-US')} rows/s | ${Math.round(appIngest).toLocaleString('en-US')} rows/s | ${(appIngest / bulkIngest).toFixed(1)}× |
| ingest with the HNSW index maintained (last ${tail.toLocaleString('en-US')} rows) | ${Math.round(maintainedIngest).toLocaleString('en-US')} rows/s | | ${(appIngest / maintainedIngest).toFixed(1)}× |
| HNSW build over ${(SIZE - tail).toLocaleString('en-US')} rows (CREATE INDEX) | ${buildSeconds.toFixed(1)} s (${Math.round((SIZE - tail) / buildSeconds).toLocaleString('en-US')} rows/s) | – | |
| disk per row: table (heap + TOAST) / all indexes / HNSW alone | ${perRow(pgvSize.table)} / ${perRow(pgvSize.indexes)} / ${perRow(pgvSize.hnsw)} B | ${perRow(appSize.table)} / ${perRow(appSize.indexes)} / – B | |

Exact / HNSW cut-over: one user of n rows inside the ${SIZE.toLocaleString('en-US')}-row tenant (same index), ${cutQueries.length} queries,
each path forced through the module (one transaction per query, times include BEGIN/COMMIT and the bounded count):

${markdownTable(['user rows', 'exact p50 ms', 'HNSW p50 ms', 'HNSW p95 ms', 'HNSW top-10 exact', 'HNSW paths', 'default cut-over picks (counting every query)'], cut)}

${crossover(crossing, 40, SIZE)}

ef_search over the whole tenant (HNSW forced, limit 10, fetch ${10 + FETCH_MARGIN}, ${efQueries.length} queries):

${markdownTable(['hnsw.ef_search', 'p50 ms', 'p95 ms', 'top-10 exact'], sweep)}

HNSW build parameters (index rebuilt over the ${SIZE.toLocaleString('en-US')} rows; HNSW forced over the tenant, limit 10, ${efQueries.length} queries;
each cell: search p50, share of queries whose top-10 equals the exact one):

${markdownTable(['m / ef_construction', 'build s', ...EF_SWEEP.map((ef) => `ef_search ${ef}`)], builds)}

The ${realRows.length.toLocaleString('en-US')} real turns alone (one scope, no copies), HNSW forced, all ${realQueries.length} questions:
top-10 equal to exact in ${(realRun.exact * 100).toFixed(1)}% (p50 ${fmt(realRun.p50, 1)} ms).
`);
  } finally {
    await pool.end();
    await cluster.stop();
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (!args.flags.has('no-write')) {
    const file = new URL('./RESULTS-postgres.md', import.meta.url).pathname;
    writeResultsSection(file, 'store-pgvector', out.join('\n'));
    log(`wrote ${file}`);
  }
}

await main();
