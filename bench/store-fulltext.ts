/**
 * The full-text channel on PostgreSQL at 100k memories in one scope, with and without leaving out
 * the words most rows hold (`fullTextMaxShare`, src/store/postgres/pg-term-shares.ts), beside
 * SQLite's FTS5, side by side in one run: LoCoMo turns grown to `size` rows (bench/lib/
 * locomo-corpus.ts, texts only), LoCoMo questions tokenised as the default recall profile sends
 * them (every word, OR-ed), `store.lexicalSearch` with the recall's pool of 50.
 *
 *   npx tsx bench/store-fulltext.ts                      # 100k, writes a section of bench/RESULTS-postgres.md
 *   npx tsx bench/store-fulltext.ts --size 20000 --no-write
 *
 * Measures p50/p95 per setting, the rows a query matches, and how many of SQLite's BM25 top 50
 * (IDF-weighted: the reference lexical relevance) each PostgreSQL setting returns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { MemoryStore } from '../src/store/memory-store.js';
import { createPostgresStore } from '../src/store/postgres/index.js';
import { buildTsQuery } from '../src/store/postgres/pg-full-text.js';
import { clientQueries } from '../src/store/postgres/pg-query-runner.js';
import { dropCommonTerms, TermShareCache } from '../src/store/postgres/pg-term-shares.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { unicodeTokenize } from '../src/text/tokenizer.js';
import { startPgCluster } from '../test/support/pg-cluster.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { corpusRecord, DEFAULT_LOCOMO, loadLocomoCorpus } from './lib/locomo-corpus.js';
import { writeResultsSection } from './lib/results-section.js';
import { fmt, markdownTable, percentile } from './lib/stats.js';

const args = parseArgs(process.argv.slice(2), ['size', 'queries', 'shares', 'data'], ['no-write']);
const SIZE = parseIntList(args.values.get('size') ?? '100000', 'size')[0] as number;
const QUERIES = parseIntList(args.values.get('queries') ?? '200', 'queries')[0] as number;
const SHARES = (args.values.get('shares') ?? '1,0.05,0.02,0.01').split(',').map(Number);
const LIMIT = 50;
const scope = { tenant: 'bench' };
const log = (line: string): void => void process.stderr.write(`${line}\n`);

async function load(store: MemoryStore, texts: (i: number) => ReturnType<typeof corpusRecord>): Promise<void> {
  for (let s = 0; s < SIZE; s += 1000) {
    const batch = [];
    for (let i = s; i < Math.min(SIZE, s + 1000); i++) batch.push(texts(i));
    await store.insert(batch);
  }
}

async function timed(store: MemoryStore, queries: string[][]): Promise<{ times: number[]; ids: string[][] }> {
  for (const terms of queries.slice(0, 10)) await store.lexicalSearch({ filter: { scope }, terms, limit: LIMIT });
  const times: number[] = [];
  const ids: string[][] = [];
  for (const terms of queries) {
    const start = performance.now();
    const rows = await store.lexicalSearch({ filter: { scope }, terms, limit: LIMIT });
    times.push(performance.now() - start);
    ids.push(rows.map((r) => r.id));
  }
  return { times, ids };
}

function overlap(a: string[][], reference: string[][]): number {
  let found = 0;
  let total = 0;
  a.forEach((ids, i) => {
    const want = new Set(reference[i]);
    total += want.size;
    found += ids.filter((id) => want.has(id)).length;
  });
  return total === 0 ? 0 : found / total;
}

async function main(): Promise<void> {
  const runStart = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const c = await loadLocomoCorpus(args.values.get('data') ?? DEFAULT_LOCOMO, SIZE);
  const queries = c.queries.slice(0, QUERIES).map((q) => unicodeTokenize(q.text));
  // Texts only: the channel never reads vectors.
  const record = (i: number) => ({ ...corpusRecord(c, i, scope), vector: null, embedding: null });
  const dir = mkdtempSync(join(tmpdir(), 'engram-fulltext-'));
  const server = await startPgCluster({ database: 'engram_fulltext', settings: { shared_buffers: '512MB' } });
  const rows: string[][] = [];
  try {
    const sqlite = await createSqliteStore({ path: join(dir, 'bench.db') });
    await load(sqlite, record);
    const reference = await timed(sqlite, queries);
    await sqlite.close();
    rows.push([
      'SQLite FTS5 (bm25)',
      fmt(percentile(reference.times, 50), 1),
      fmt(percentile(reference.times, 95), 1),
      '',
      '100% (the reference)',
    ]);
    const base = await createPostgresStore({ connectionString: server.url, schema: 'ft', vector: 'app' });
    await load(base, record);
    await base.close();
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    await pool.query('VACUUM ANALYZE ft.engram_memories');
    for (const share of SHARES) {
      const store = await createPostgresStore({
        connectionString: server.url,
        schema: 'ft',
        vector: 'app',
        fullTextMaxShare: share,
      });
      const run = await timed(store, queries);
      await store.close();
      // Rows the OR query of the terms the store kept matches (the first 20 queries).
      const matched: number[] = [];
      const client = await pool.connect();
      const shares = await new TermShareCache('ft', (work) => work(clientQueries(client))).get();
      for (const terms of queries.slice(0, 20)) {
        const tsquery = buildTsQuery(dropCommonTerms(terms, shares, share));
        const r = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ft.engram_memories WHERE fts @@ to_tsquery('simple', $1)`,
          [tsquery],
        );
        matched.push(r.rows[0]?.n ?? 0);
      }
      client.release();
      rows.push([
        share >= 1
          ? 'PostgreSQL ts_rank, every word (before)'
          : `PostgreSQL ts_rank, words in ≤ ${share * 100}% of rows`,
        fmt(percentile(run.times, 50), 1),
        fmt(percentile(run.times, 95), 1),
        Math.round(percentile(matched, 50)).toLocaleString('en-US'),
        `${(overlap(run.ids, reference.ids) * 100).toFixed(1)}%`,
      ]);
      log(`share ${share}: p50 ${fmt(percentile(run.times, 50), 1)} ms`);
    }
    await pool.end();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const text = `## The full-text channel at ${SIZE.toLocaleString('en-US')} memories in one scope (bench/store-fulltext.ts)

Command: \`npx tsx bench/store-fulltext.ts ${process.argv.slice(2).join(' ')}\` (${new Date().toISOString().slice(0, 16)} UTC,
${cpus().length} cores, Node ${process.version}, load average ${loadStart.toFixed(1)} at start and ${(loadavg()[0] ?? 0).toFixed(1)} at end,
run took ${((performance.now() - runStart) / 60_000).toFixed(1)} min).

- Data: the LoCoMo dev turns grown to ${SIZE.toLocaleString('en-US')} rows in one scope (bench/lib/locomo-corpus.ts, texts only).
  Queries: ${queries.length} LoCoMo questions as the default recall profile sends them (every word, OR-ed);
  \`store.lexicalSearch\` with limit ${LIMIT} (the recall's full-text pool), one at a time after a warm-up of 10.
- PostgreSQL 15 started by the bench (VACUUM ANALYZE after the load: the word shares come from its statistics).
  "matched" = rows the OR query of the kept words matches (median of 20 queries). "BM25 top-${LIMIT} found" = share of
  SQLite's FTS5 bm25 top ${LIMIT} (IDF-weighted) that the setting returns.

${markdownTable(['channel', 'p50 ms', 'p95 ms', 'rows matched', `BM25 top-${LIMIT} found`], rows)}
`;
  process.stdout.write(`${text}\n`);
  if (!args.flags.has('no-write')) {
    const file = new URL('./RESULTS-postgres.md', import.meta.url).pathname;
    writeResultsSection(file, 'store-fulltext', text);
    log(`wrote ${file}`);
  }
}

await main();
