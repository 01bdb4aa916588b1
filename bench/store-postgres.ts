/**
 * PostgreSQL vs SQLite, side by side in one run: ingest throughput (store.insert, batches of
 * 1,000) and recall latency (Engram.recall with a precomputed query vector, limit 5, engram
 * profile: dense pool + corpus full-text channel + BM25 fusion) at
 *   - 10k memories in one scope,
 *   - 100k memories in one scope,
 *   - 1,000 scopes (tenants) x 1k memories (1M rows in one table / one file).
 * With --pglite, PGlite (WASM PostgreSQL) with pgvector/HNSW runs the 10k case as well.
 *
 *   npx tsx bench/store-postgres.ts                 # all three scales
 *   npx tsx bench/store-postgres.ts --quick         # 10k only, fewer queries
 *   npx tsx bench/store-postgres.ts --scale=multi   # one scale (10k | 100k | multi), repeatable
 *   npx tsx bench/store-postgres.ts --scale=multi --scopes=200   # fewer tenants of 1k
 *   npx tsx bench/store-postgres.ts --pglite        # also PGlite + pgvector at 10k (slow ingest)
 *   npx tsx bench/store-postgres.ts --backends=pgvector   # some of sqlite, app, pgvector (default all)
 *   npx tsx bench/store-postgres.ts --scale=multi --hnsw-placeholder   # see pgvectorBulkLoad
 *   (PostgreSQL + pgvector runs too when the machine's server has pgvector; --pgvector with ENGRAM_BENCH_PG_URL)
 *   ENGRAM_BENCH_PG_URL=postgres://… npx tsx bench/store-postgres.ts   # an existing server
 *
 * Without ENGRAM_BENCH_PG_URL a throwaway PostgreSQL 15 cluster is started from the machine's
 * binaries (fsync=off, synchronous_commit=off, as in the tests); SQLite runs with
 * synchronous=NORMAL (WAL) so neither side waits for the disk on commit.
 * Writes its section of bench/RESULTS-postgres.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '../src/embed/embedder.js';
import { Engram } from '../src/engram.js';
import type { MemoryRecord, MemoryStore } from '../src/store/memory-store.js';
import { createPgliteStore, createPostgresStore } from '../src/store/postgres/index.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import pg from 'pg';
import { pgNames, quoteIdent } from '../src/store/postgres/pg-names.js';
import { clientQueries } from '../src/store/postgres/pg-query-runner.js';
import { denseIndexName, ensureDenseIndex } from '../src/store/postgres/pgvector-indexes.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { pgExtensionInstalled } from '../test/support/pg-extensions.js';
import { writeResultsSection } from './lib/results-section.js';
import { fmt, markdownTable, percentile } from './lib/stats.js';
import { mulberry32, normalize } from './lib/synthetic-corpus.js';

const DIM = 128;
const MODEL = 'bench-synthetic-128';
const quick = process.argv.includes('--quick');
const withPglite = process.argv.includes('--pglite');

interface Scale {
  name: string;
  scopes: number;
  perScope: number;
  queries: number;
  pglite: boolean;
}

/** `--scopes=N`: tenants of the many-scopes scale. @default 1000 */
const MULTI_SCOPES = Number(process.argv.find((a) => a.startsWith('--scopes='))?.slice('--scopes='.length) ?? 1000);
if (!Number.isInteger(MULTI_SCOPES) || MULTI_SCOPES < 1) throw new Error('--scopes must be a positive integer');

const ALL_SCALES: Record<string, Scale> = {
  '10k': { name: '10k, 1 scope', scopes: 1, perScope: 10_000, queries: 100, pglite: withPglite },
  '100k': { name: '100k, 1 scope', scopes: 1, perScope: 100_000, queries: 25, pglite: false },
  multi: {
    name: `${MULTI_SCOPES.toLocaleString('en-US')} scopes x 1k`,
    scopes: MULTI_SCOPES,
    perScope: 1_000,
    queries: 100,
    pglite: false,
  },
};
/** `--backends=sqlite,app,pgvector` picks the columns; default all (pgvector where installed). */
const BACKENDS = new Set(
  (process.argv.find((a) => a.startsWith('--backends='))?.slice('--backends='.length) ?? 'sqlite,app,pgvector').split(','),
);
/**
 * `--hnsw-placeholder`: after a pgvector load, put an empty placeholder under the HNSW index's
 * name instead of building it. Only for scales whose scopes are all under the exact/HNSW cut-over
 * (1k-row tenants: their searches scan the tenant's rows exactly and never read the index), where
 * the build over every row (about 70 min for 1M rows of 128 dimensions on 2 loaded cores) would
 * only delay the recall figures. The placeholder has no row estimate, so the cut-over is its
 * fallback (2,500 rows): still above every 1k-row scope, the same path as with the real index.
 */
const HNSW_PLACEHOLDER = process.argv.includes('--hnsw-placeholder');
/** `--scale=10k --scale=multi` picks scales; default all three. */
const picked = process.argv.filter((a) => a.startsWith('--scale=')).map((a) => a.slice('--scale='.length));

const SCALES: Scale[] =
  picked.length > 0
    ? picked.map((name) => {
        const scale = ALL_SCALES[name];
        if (!scale) throw new Error(`unknown --scale=${name} (10k, 100k, multi)`);
        return scale;
      })
    : quick
      ? [{ name: '10k, 1 scope', scopes: 1, perScope: 10_000, queries: 50, pglite: withPglite }]
      : [ALL_SCALES['10k'] as Scale, ALL_SCALES['100k'] as Scale, ALL_SCALES.multi as Scale];

/** A 4,000-word synthetic vocabulary with Zipf-like use, so full-text has common and rare words. */
const VOCAB = (() => {
  const rand = mulberry32(11);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'sa',
    'to',
    'vi',
    'zen',
    'dor',
    'pla',
    'qui',
    'bre',
    'fos',
    'gal',
    'hun',
  ];
  const words = new Set<string>();
  while (words.size < 4_000) {
    const n = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += syllables[Math.floor(rand() * syllables.length)];
    words.add(w);
  }
  return [...words];
})();

function zipfWord(rand: () => number): string {
  // P(rank r) ~ 1/r over 4,000 words, by inverse transform on log scale.
  const r = Math.floor(Math.exp(rand() * Math.log(VOCAB.length)));
  return VOCAB[Math.min(VOCAB.length - 1, r - 1 < 0 ? 0 : r - 1)] as string;
}

/** Topic centroids: memories are noisy copies, so dense search has real structure. */
const CENTROIDS = (() => {
  const rand = mulberry32(5);
  return Array.from({ length: 256 }, () => normalize(Float32Array.from({ length: DIM }, () => rand() * 2 - 1)));
})();

function memoryVector(rand: () => number, topic: number): Float32Array {
  const c = CENTROIDS[topic % CENTROIDS.length] as Float32Array;
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) v[i] = (c[i] as number) + (rand() * 2 - 1) * 0.35;
  return normalize(v);
}

function makeRecords(
  scope: { tenant: string; user: string },
  start: number,
  count: number,
  seed: number,
): MemoryRecord[] {
  const rand = mulberry32(seed);
  const out: MemoryRecord[] = [];
  for (let i = start; i < start + count; i++) {
    const topic = Math.floor(rand() * CENTROIDS.length);
    const words = Array.from({ length: 8 + Math.floor(rand() * 9) }, () => zipfWord(rand));
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    out.push({
      id: `m-${i}`,
      text: words.join(' '),
      type: 'LongTermMemory',
      key: null,
      tags: [],
      level: null,
      summary: null,
      background: null,
      sources: [],
      scope,
      metadata: {},
      statedAt: at,
      createdAt: at,
      updatedAt: at,
      status: 'activated',
      embedding: { model: MODEL, dim: DIM },
      vector: memoryVector(rand, topic),
    });
  }
  return out;
}

/** Never called: recall gets precomputed query vectors. Present because Engram needs one. */
const benchEmbedder: Embedder = {
  model: MODEL,
  dim: DIM,
  embed: () => Promise.reject(new Error('bench embedder is not used for queries with a vector')),
};

interface Row {
  scale: string;
  backend: string;
  rows: number;
  ingestPerSec: number;
  /** Seconds of the HNSW build after the load (pgvector), when one ran. */
  buildSec?: number | undefined;
  p50: number;
  p95: number;
  denseP50: number;
  lexicalP50: number;
}

/** Around the load: after its first batch (the store has made its indexes) and after the last. */
interface LoadHooks {
  afterFirstBatch?: () => Promise<void>;
  /** Returns seconds spent (an index build), reported beside the ingest rate. */
  afterLoad?: () => Promise<number | undefined>;
}

async function runScale(
  scale: Scale,
  backend: string,
  open: () => Promise<MemoryStore>,
  writers = 1,
  hooks: LoadHooks = {},
): Promise<Row> {
  const store = await open();
  const scopeOf = (s: number): { tenant: string; user: string } =>
    scale.scopes === 1 ? { tenant: 'bench', user: 'u' } : { tenant: `tenant-${s}`, user: 'u' };
  const total = scale.scopes * scale.perScope;
  const batch = 1_000;
  const jobs: Array<() => Promise<void>> = [];
  for (let s = 0; s < scale.scopes; s++) {
    for (let i = 0; i < scale.perScope; i += batch) {
      jobs.push(() => store.insert(makeRecords(scopeOf(s), i, Math.min(batch, scale.perScope - i), s * 1_000_003 + i)));
    }
  }
  if (hooks.afterFirstBatch) {
    await (jobs.shift() as () => Promise<void>)();
    await hooks.afterFirstBatch();
  }
  const loaded = total - (hooks.afterFirstBatch ? Math.min(batch, scale.perScope) : 0);
  const t0 = performance.now();
  let next = 0;
  // `writers` batches in flight at once (PostgreSQL takes concurrent writers; SQLite has one).
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
    }),
  );
  const ingestSec = (performance.now() - t0) / 1000;
  const buildSec = await hooks.afterLoad?.();

  const engram = await Engram.open({ store, embedder: benchEmbedder, trackUsage: false, ownResources: true });
  const rand = mulberry32(99);
  const queries = Array.from({ length: scale.queries }, () => {
    const s = Math.floor(rand() * scale.scopes);
    const text = Array.from({ length: 3 }, () => zipfWord(rand)).join(' ');
    return { scope: scopeOf(s), text, vector: memoryVector(rand, Math.floor(rand() * CENTROIDS.length)) };
  });
  // Warm-up (caches, connections, per-scope model check), then the measured pass.
  for (const q of queries.slice(0, Math.max(3, Math.floor(queries.length / 5)))) {
    await engram.recall(q.text, { scope: q.scope, vector: q.vector, limit: 5 });
  }
  const totals: number[] = [];
  const dense: number[] = [];
  const lexical: number[] = [];
  for (const q of queries) {
    const start = performance.now();
    const result = await engram.recall(q.text, { scope: q.scope, vector: q.vector, limit: 5 });
    totals.push(performance.now() - start);
    dense.push(result.timings.denseMs);
    lexical.push(result.timings.lexicalMs);
  }
  await engram.close();
  const row: Row = {
    scale: scale.name,
    backend,
    rows: total,
    ingestPerSec: loaded / ingestSec,
    buildSec,
    p50: percentile(totals, 50),
    p95: percentile(totals, 95),
    denseP50: percentile(dense, 50),
    lexicalP50: percentile(lexical, 50),
  };
  process.stdout.write(
    `${scale.name.padEnd(18)} ${backend.padEnd(22)} ingest ${Math.round(row.ingestPerSec)}/s${buildSec === undefined ? '' : ` build ${buildSec.toFixed(1)} s`}  recall p50 ${fmt(row.p50, 1)} ms  p95 ${fmt(row.p95, 1)} ms\n`,
  );
  return row;
}

/**
 * pgvector loads as docs/scaling.md advises for a bulk import: the index the first batch created
 * is dropped, the rest loaded without it, then built again and timed (maintaining it row by row
 * over 1M rows would take the bench hours on 2 cores; `Engram.open` would build it anyway, as
 * its migrate prepares every stored space). Scopes of 1k rows are under the exact/HNSW cut-over:
 * their searches scan the tenant's rows exactly, the index serves only bigger scopes.
 */
function pgvectorBulkLoad(url: string, schema: string): LoadHooks {
  const names = pgNames(schema);
  const index = denseIndexName(names.prefix, { model: MODEL, dim: DIM });
  const sql = async (text: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  return {
    afterFirstBatch: () => sql(`DROP INDEX ${names.schema}.${quoteIdent(index)}`),
    afterLoad: async () => {
      await sql(`VACUUM ANALYZE ${names.memories}`);
      if (HNSW_PLACEHOLDER) {
        await sql(`CREATE INDEX ${quoteIdent(index)} ON ${names.memories} (id) WHERE false`);
        return undefined;
      }
      const start = performance.now();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('BEGIN');
        await ensureDenseIndex(clientQueries(client), names, { model: MODEL, dim: DIM });
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
      return (performance.now() - start) / 1000;
    },
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-pg-'));
  const external = process.env.ENGRAM_BENCH_PG_URL;
  const cluster = external
    ? undefined
    : await startPgCluster({
        database: 'engram_bench',
        // maintenance_work_mem holds the whole HNSW graph of a build; past it pgvector builds on disk,
        // several times slower (1M rows × 128 dims at m 32 is about 1.5 GB).
        settings: { shared_buffers: '1GB', maintenance_work_mem: '3GB', work_mem: '64MB' },
      });
  const pgUrl = external ?? (cluster as { url: string }).url;
  const rows: Row[] = [];
  // The machine's server has pgvector (or the external one is asked to): add its HNSW path.
  const withPgVector = external ? process.argv.includes('--pgvector') : pgExtensionInstalled('vector');
  try {
    let n = 0;
    for (const scale of SCALES) {
      n++;
      if (BACKENDS.has('sqlite'))
        rows.push(
          await runScale(scale, 'SQLite (file, WAL)', async () => {
            const store = createSqliteStore({ path: join(dir, `bench-${n}.db`), synchronous: 'NORMAL' });
            await store.migrate();
            return store;
          }),
        );
      if (BACKENDS.has('app'))
        rows.push(
          await runScale(
            scale,
            'PostgreSQL 15 (app-side cosine)',
            () => createPostgresStore({ connectionString: pgUrl, schema: `bench_${n}`, vector: 'app' }),
            4,
          ),
        );
      if (withPgVector && BACKENDS.has('pgvector')) {
        rows.push(
          await runScale(
            scale,
            'PostgreSQL 15 + pgvector (HNSW)',
            () => createPostgresStore({ connectionString: pgUrl, schema: `bench_v${n}`, vector: 'pgvector' }),
            4,
            pgvectorBulkLoad(pgUrl, `bench_v${n}`),
          ),
        );
      }
      if (scale.pglite) {
        rows.push(
          await runScale(scale, 'PGlite + pgvector (HNSW)', () => createPgliteStore({ exactSearchMaxRows: 2_000 })),
        );
      }
    }
  } finally {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const minutes = (performance.now() - started) / 60_000;
  const table = markdownTable(
    [
      'scale',
      'backend',
      'rows',
      'ingest rows/s',
      'HNSW build s',
      'recall p50 ms',
      'recall p95 ms',
      'dense p50 ms',
      'full-text p50 ms',
    ],
    rows.map((r) => [
      r.scale,
      r.backend,
      r.rows.toLocaleString('en-US'),
      Math.round(r.ingestPerSec).toLocaleString('en-US'),
      r.buildSec === undefined ? '' : r.buildSec.toFixed(1),
      fmt(r.p50, 1),
      fmt(r.p95, 1),
      fmt(r.denseP50, 1),
      fmt(r.lexicalP50, 1),
    ]),
  );
  const md = `# PostgreSQL vs SQLite store: ingest and recall

Command: \`npx tsx bench/store-postgres.ts ${process.argv.slice(2).join(' ')}\` (${new Date().toISOString().slice(0, 16)} UTC, ${cpus().length} cores,
Node ${process.version}, load average ${loadStart.toFixed(1)} at start and ${(loadavg()[0] ?? 0).toFixed(1)} at end, run took ${minutes.toFixed(1)} min).

- Data: synthetic memories, 8–16 words from a 4,000-word Zipf vocabulary, ${DIM}-dim vectors
  (noisy copies of 256 topic centroids). Ingest = \`store.insert\` in batches of 1,000 (one
  transaction each; PostgreSQL with 4 batches in flight, SQLite one), vectors precomputed. Recall = \`Engram.recall(text, { vector, limit: 5 })\`,
  engram profile (dense pool of 50 + corpus full-text channel + BM25 fusion), after a warm-up of
  a fifth of the queries, one query at a time.
- PostgreSQL: a local PostgreSQL 15 started by the bench (fsync=off, synchronous_commit=off),
  over TCP on 127.0.0.1, pool of 10, shared_buffers 1 GB; app-side exact cosine (\`vector: 'app'\`)${withPgVector ? ', and + pgvector: the store\'s defaults (src/store/postgres/pgvector-dense.ts), loaded without its HNSW index and the index then built ("HNSW build s"; maintenance_work_mem 3 GB; 1k-row scopes are under the exact/HNSW cut-over: their searches scan the tenant\'s rows exactly, the index serves bigger scopes)' : ' (no pgvector on this server)'}.
${HNSW_PLACEHOLDER ? "  With `--hnsw-placeholder` pgvector's HNSW index was not built after the load: a placeholder under its name kept the store from building it (every scope here is under the exact/HNSW cut-over and is scanned exactly, the index is never read).\n" : ''}  SQLite: a file, WAL, synchronous=NORMAL, its in-memory exact vector cache.
  PGlite + pgvector: in-process WASM PostgreSQL, HNSW above 2,000 rows per filter.
- "N scopes x 1k": N tenants of 1,000 memories in one table / one file (N × 1k rows);
  each query picks a random tenant.

${table}
`;
  const out = process.env.ENGRAM_BENCH_OUT ?? new URL('./RESULTS-postgres.md', import.meta.url).pathname;
  writeResultsSection(out, 'store-postgres', md);
  process.stdout.write(`\n${table}\n\nwrote ${out} (${minutes.toFixed(1)} min)\n`);
}

await main();
