/**
 * The cold cliff: the first recall of a process that just opened a database, against the warm
 * recalls after it, with and without the vector cache's warm-up (`Engram.warm`, which
 * `engram serve` runs once listening), and what the cache holds per memory.
 *
 *   npx tsx bench/cold-start.ts [--sizes 10000,100000] [--queries 60] [--data FILE] [--json]
 *
 * Corpus: bench/lib/synthetic-corpus over real LoCoMo turns with their real USE-lite vectors, in
 * one scope of a SQLite file. A first process recalls once and closes (the cache remembers the
 * partition it served). Then each mode runs in fresh child processes, in turn: `no warm-up`
 * (`recentPartitionsFile: null`: the first query loads the partition) and `warm-up` (`warm()`
 * awaited before the first query, its time reported apart). Rows: embedding excluded (query vectors
 * given) and included (the default embedder, uncached, embeds each query, as `/v1/recall` does).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

import { Engram } from '../src/engram.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { lookupEmbedder, openBenchEmbedder, openRawEmbedder } from './lib/bench-embedder.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import { fmt, markdownTable, percentile } from './lib/stats.js';
import { buildCorpus } from './lib/synthetic-corpus.js';

const SCOPE = { tenant: 'bench', user: 'u1' };
const SELF = fileURLToPath(import.meta.url);

interface ChildReport {
  warmUpMs: number;
  firstMs: number;
  warmP50: number;
  memories: number;
  cacheBytes: number;
  maxBytes: number;
  rows: number;
  rowBytes: number;
  rssMb: number;
}

interface Question {
  text: string;
  vector: number[];
}

/** One fresh process: open, optionally warm, recall every question once (the first is the cold one). */
async function child(path: string, warm: boolean, embed: boolean, questions: Question[]): Promise<ChildReport> {
  const rss0 = process.memoryUsage().rss;
  const store = createSqliteStore({ path, ...(warm ? {} : { recentPartitionsFile: null }) });
  const embedder = openRawEmbedder();
  const engram = await Engram.open({ store, embedder, trackUsage: false });
  let warmUpMs = 0;
  if (warm) {
    const start = performance.now();
    await engram.warm();
    warmUpMs = performance.now() - start;
  } else if (embed) {
    // The same embedder warm-up as Engram.warm, so the rows differ by the cache alone.
    await embedder.embed(['warm up']);
  }
  const times: number[] = [];
  for (const q of questions) {
    const vector = embed ? undefined : Float32Array.from(q.vector);
    const start = performance.now();
    await engram.recall(q.text, { scope: SCOPE, limit: 10, threshold: 0, vector });
    times.push(performance.now() - start);
  }
  const stats = store.vectorCacheStats();
  const rssMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
  await engram.close();
  const warmTimes = times.slice(1).sort((a, b) => a - b);
  return {
    warmUpMs,
    firstMs: times[0] as number,
    warmP50: percentile(warmTimes, 50),
    memories: stats.memories,
    cacheBytes: stats.bytes,
    maxBytes: stats.maxBytes,
    rows: stats.rows,
    rowBytes: stats.rowBytes,
    rssMb,
  };
}

function runChild(path: string, warm: boolean, embed: boolean, questions: Question[]): ChildReport {
  const out = spawnSync(process.execPath, ['--import', 'tsx', SELF, '--child', JSON.stringify({ path, warm, embed })], {
    input: JSON.stringify(questions),
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  if (out.status !== 0) throw new Error(`child failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop() as string) as ChildReport;
}

async function build(dir: string, size: number, data: string): Promise<{ path: string; questions: Question[] }> {
  const conversations = await readLocomoBench(data);
  const baseTexts = [...new Set(conversations.flatMap((c) => c.memories.map((m) => m.text)))];
  const questionTexts = [...new Set(conversations.flatMap((c) => c.questions.map((q) => q.question)))];
  const cached = openBenchEmbedder();
  const baseVectors = await cached.embed(baseTexts);
  const questionVectors = await cached.embed(questionTexts);
  const model = cached.model;
  const dim = cached.dim;
  await cached.close?.();
  const corpus = buildCorpus(
    baseTexts.map((text, i) => ({ text, vector: baseVectors[i] as Float32Array })),
    size,
  );
  const vectors = new Map<string, Float32Array>();
  for (let i = 0; i < size; i++) vectors.set(corpus.texts[i] as string, corpus.row(i));
  const path = join(dir, 'engram.db');
  const store = createSqliteStore({ path });
  const loader = await Engram.open({ store, embedder: lookupEmbedder(model, dim, vectors) });
  for (let s = 0; s < size; s += 1000) {
    const inputs = [];
    for (let i = s; i < Math.min(size, s + 1000); i++) inputs.push({ id: `m${i}`, text: corpus.texts[i] as string });
    await loader.addMany(inputs, { scope: SCOPE });
  }
  const questions = questionTexts.map((text, i) => ({ text, vector: [...(questionVectors[i] as Float32Array)] }));
  // The process that served the scope before the restart: one recall, then close.
  await loader.recall(questions[0]?.text ?? '', {
    scope: SCOPE,
    limit: 10,
    vector: Float32Array.from(questions[0]?.vector ?? []),
  });
  await loader.close();
  return { path, questions };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['sizes', 'queries', 'data', 'child'], ['json']);
  const childArgs = args.values.get('child');
  if (childArgs !== undefined) {
    const { path, warm, embed } = JSON.parse(childArgs) as { path: string; warm: boolean; embed: boolean };
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const questions = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Question[];
    console.log(JSON.stringify(await child(path, warm, embed, questions)));
    return;
  }
  const sizes = parseIntList(args.values.get('sizes') ?? '10000,100000', 'sizes');
  const nQueries = parseIntList(args.values.get('queries') ?? '60', 'queries')[0] as number;
  const data = args.values.get('data') ?? defaultLocomoData();
  const load = [loadavg()[0] ?? 0];
  const rows: string[][] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'engram-cold-'));
    try {
      const { path, questions } = await build(dir, size, data);
      // A question the first process did not ask, so nothing of the query is cached anywhere.
      const asked = questions.slice(1, 1 + nQueries);
      for (const embed of [false, true]) {
        for (const warm of [false, true]) {
          const r = runChild(path, warm, embed, asked);
          rows.push([
            size.toLocaleString('en'),
            embed ? 'included' : 'excluded',
            warm ? 'warm-up' : 'no warm-up',
            warm ? fmt(r.warmUpMs) : '–',
            fmt(r.firstMs),
            fmt(r.warmP50),
            `${(r.firstMs / r.warmP50).toFixed(1)}×`,
            r.memories.toLocaleString('en'),
            `${(r.cacheBytes / Math.max(1, r.memories)).toFixed(0)} B (${(r.cacheBytes / 2 ** 20).toFixed(0)} of ${(r.maxBytes / 2 ** 20).toFixed(0)} MB)`,
            `${r.rows.toLocaleString('en')} rows, ${(r.rowBytes / Math.max(1, r.rows)).toFixed(0)} B each`,
            `${r.rssMb.toFixed(0)} MB`,
          ]);
          console.error(rows[rows.length - 1]?.join(' | '));
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    load.push(loadavg()[0] ?? 0);
  }
  console.log(
    markdownTable(
      [
        'memories',
        'query embedding',
        'start',
        'warm-up ms',
        'first recall ms',
        'warm p50 ms',
        'first / warm',
        'cached memories',
        'cache per memory (total of budget)',
        'row cache (64 MB budget)',
        'RSS growth',
      ],
      rows,
    ),
  );
  console.log(`\nLoad average (1 min) at start and after each size: ${load.map((l) => l.toFixed(2)).join(', ')}`);
}

await main();
