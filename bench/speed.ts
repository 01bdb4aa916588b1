/**
 * Recall latency, exactness and ingest throughput, with peers, in one run.
 *
 *   npx tsx bench/speed.ts [--sizes 1000,10000,100000] [--queries 200] [--slow-queries 30]
 *                          [--orama-max 10000] [--mem0-max 1000] [--data FILE] [--json]
 *
 * Corpus: LoCoMo turns with their real USE-lite vectors, repeated with variations (other speaker
 * names, a suffix; vector + Gaussian noise, re-normalised) up to each size, all in ONE scope.
 * Queries: LoCoMo questions with their real vectors (precomputed, so "query embedding excluded"
 * means exactly that); "included" runs the same recall letting Engram embed the query with the
 * uncached default embedder (a second Engram instance, so its caches do not warm the first's).
 * Peers run in worker threads (a V8 heap each); systems take turns in blocks of 10 queries.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import type { RecallProfile, RecallResult } from '../src/model/api.js';
import { Engram } from '../src/engram.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import { candidatePoolSize } from '../src/recall/candidate-pool.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { lookupEmbedder, openBenchEmbedder, openRawEmbedder } from './lib/bench-embedder.js';
import { exactTopK } from './lib/exact-scan.js';
import { referenceRank } from './lib/reference-recall.js';
import { openPeerInWorker, type PeerKind, type WorkerPeer } from './lib/peer-worker.js';
import { buildCorpus, mulberry32, type SyntheticCorpus } from './lib/synthetic-corpus.js';
import { fmt, markdownTable, mean, percentile } from './lib/stats.js';

const DEFAULT_DATA = defaultLocomoData();
const SCOPE = { tenant: 'bench', user: 'speed' };
const K = 10;
/** Queries made only of common words: they must not make the lexical channel score most of the corpus. */
const COMMON_QUERIES = [
  'what did you do with your friends last week',
  'how was your day today',
  'i really like that, it is so nice',
  'what are you up to this weekend',
  'that sounds great, tell me more about it',
  'did you have a good time with the family',
  'i was thinking about it all day',
  'what do you like to do for fun',
  'how are the kids doing these days',
  'it was really good to see you',
];

interface Row {
  size: number;
  system: string;
  queries: number;
  p50: number;
  p95: number;
  mean: number;
  /** Mean process CPU ms per query (all threads; robust to other load on the machine). */
  cpuMean?: number | undefined;
  /** Memories per second while loading (when measured). */
  ingestPerSecond?: number | undefined;
  note?: string | undefined;
}

interface SizeReport {
  size: number;
  rows: Row[];
  /** Share of queries whose store dense top-10 equals the exact scan's top-10. */
  denseTop10Exact: number;
  /** Share of queries whose facade 'seed' top-10 equals an exact seed pipeline's top-10. */
  seedTop10Exact: number;
  /** Mean stage timings of Engram recall (excluded embedding), ms. */
  stages: Record<string, number>;
  commonLexicalMs: number;
}

interface Query {
  text: string;
  vector: Float32Array;
}

interface TimedSystem {
  name: string;
  /** Queries to run (the first n). */
  n: number;
  ingestPerSecond?: number | undefined;
  /** Runs query i; a system timed elsewhere (in its worker) returns its own milliseconds. */
  run(query: Query, i: number): Promise<number | void>;
}

/** Consecutive queries one system runs before the next system's turn (see {@link interleave}). */
const BLOCK = 10;

/**
 * Warms every system up, then runs the queries in blocks of {@link BLOCK}: block b runs on every
 * system, in an order rotated by b. Load from the rest of the machine is spread over all systems
 * alike, and each system is timed as it runs when it serves recalls (not straight after another
 * system's queries filled the caches and left garbage to collect), with a pause between turns.
 */
async function interleave(
  systems: readonly TimedSystem[],
  queries: readonly Query[],
): Promise<{ wall: number[][]; cpu: number[][] }> {
  for (const system of systems) for (const [i, q] of queries.slice(0, 3).entries()) await system.run(q, i);
  const times: number[][] = systems.map(() => []);
  const cpu: number[][] = systems.map(() => []);
  for (let b = 0; b * BLOCK < queries.length; b++) {
    for (let r = 0; r < systems.length; r++) {
      const j = (b + r) % systems.length;
      const system = systems[j] as TimedSystem;
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (let i = b * BLOCK; i < Math.min(queries.length, (b + 1) * BLOCK, system.n); i++) {
        const cpuStart = process.cpuUsage();
        const start = performance.now();
        const own = await system.run(queries[i] as Query, i);
        (times[j] as number[]).push(typeof own === 'number' ? own : performance.now() - start);
        const used = process.cpuUsage(cpuStart);
        (cpu[j] as number[]).push((used.user + used.system) / 1000);
      }
    }
  }
  return { wall: times, cpu };
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function timeQueries(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  return times;
}

function row(size: number, system: string, times: number[], extra: Partial<Row> = {}): Row {
  return {
    size,
    system,
    queries: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    mean: mean(times),
    ...extra,
  };
}

/** Same set of ids, allowing swaps among items whose exact scores tie the k-th within 1e-6. */
function sameTop(actual: readonly string[], exact: ReadonlyArray<{ id: string; score: number }>): boolean {
  if (actual.length !== exact.length) return false;
  const want = new Set(exact.map((e) => e.id));
  const kth = exact[exact.length - 1]?.score ?? 0;
  const missing = actual.filter((id) => !want.has(id));
  return (
    missing.length === 0 || exact.filter((e) => !actual.includes(e.id)).every((e) => Math.abs(e.score - kth) < 1e-6)
  );
}

async function main(): Promise<void> {
  const args = parseArgs(
    process.argv.slice(2),
    ['sizes', 'queries', 'slow-queries', 'orama-max', 'mem0-max', 'data'],
    ['json'],
  );
  const sizes = parseIntList(args.values.get('sizes') ?? '1000,10000,100000', 'sizes');
  const nQueries = parseIntList(args.values.get('queries') ?? '200', 'queries')[0] as number;
  const slowQueries = parseIntList(args.values.get('slow-queries') ?? '20', 'slow-queries')[0] as number;
  const oramaMax = parseIntList(args.values.get('orama-max') ?? '10000', 'orama-max')[0] as number;
  const mem0Max = parseIntList(args.values.get('mem0-max') ?? '1000', 'mem0-max')[0] as number;
  const data = args.values.get('data') ?? DEFAULT_DATA;
  const runStart = performance.now();
  const loadAtStart = loadavg()[0] ?? 0;

  // Base texts and query texts with real vectors (from the bench's embedding cache).
  const conversations = await readLocomoBench(data);
  const baseTexts = [...new Set(conversations.flatMap((c) => c.memories.map((m) => m.text)))];
  const questionTexts = [
    ...new Set(conversations.flatMap((c) => c.questions.filter((q) => q.category <= 4).map((q) => q.question))),
  ];
  const cached = openBenchEmbedder();
  const embedStart = performance.now();
  const [baseVectors, questionVectors, commonVectors] = [
    await cached.embed(baseTexts),
    await cached.embed(questionTexts),
    await cached.embed(COMMON_QUERIES),
  ];
  log(
    `vectors for ${baseTexts.length} base texts + ${questionTexts.length} questions in ${((performance.now() - embedStart) / 1000).toFixed(1)} s (cached)`,
  );
  await cached.close?.();
  const base = baseTexts.map((text, i) => ({ text, vector: baseVectors[i] as Float32Array }));
  const rand = mulberry32(7);
  const order = questionTexts.map((_, i) => i).sort(() => rand() - 0.5);
  const queries = order
    .slice(0, nQueries)
    .map((i) => ({ text: questionTexts[i] as string, vector: questionVectors[i] as Float32Array }));
  const queryVectors = new Map(queries.map((q) => [q.text, q.vector]));

  const raw = openRawEmbedder();
  await raw.embed(['warm up the model']);

  // Ingest with embedding: a fixed batch of fresh texts through addMany with the real embedder.
  const ingestDir = mkdtempSync(join(tmpdir(), 'engram-speed-ingest-'));
  const ingestTexts = baseTexts.slice(0, 1000);
  let ingestWithEmbedding = Number.NaN;
  {
    const store = createSqliteStore({ path: join(ingestDir, 'ingest.db') });
    const engram = await Engram.open({ store, embedder: raw, ownResources: false });
    const start = performance.now();
    for (let s = 0; s < ingestTexts.length; s += 250) {
      await engram.addMany(
        ingestTexts.slice(s, s + 250).map((text) => ({ text })),
        { scope: SCOPE },
      );
    }
    ingestWithEmbedding = ingestTexts.length / ((performance.now() - start) / 1000);
    await engram.close();
    await store.close();
    rmSync(ingestDir, { recursive: true, force: true });
  }
  log(`ingest with embedding: ${ingestWithEmbedding.toFixed(0)} memories/s (${ingestTexts.length} texts)`);

  const reports: SizeReport[] = [];
  for (const size of sizes) {
    log(`\n=== ${size} memories ===`);
    const corpus: SyntheticCorpus = buildCorpus(base, size);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < size; i++)
      if (!vectors.has(corpus.texts[i] as string)) vectors.set(corpus.texts[i] as string, corpus.row(i));
    const rows: Row[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'engram-speed-'));

    // --- Engram ---
    const store = createSqliteStore({ path: join(dir, 'engram.db') });
    const loader = await Engram.open({
      store,
      embedder: lookupEmbedder(raw.model, raw.dim, vectors),
      ownResources: false,
    });
    const ingestStart = performance.now();
    for (let s = 0; s < size; s += 1000) {
      const inputs = [];
      for (let i = s; i < Math.min(size, s + 1000); i++) inputs.push({ id: `m${i}`, text: corpus.texts[i] as string });
      await loader.addMany(inputs, { scope: SCOPE });
    }
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    await loader.close();
    log(`engram ingest: ${(size / ingestSeconds).toFixed(0)} memories/s (precomputed vectors)`);

    const engram = await Engram.open({ store, embedder: raw, ownResources: false });
    const embeddingIncluded = await Engram.open({ store, embedder: raw, ownResources: false });
    const warm = await Engram.open({ store, embedder: raw, ownResources: false, trackUsage: false });
    for (const q of queries) await warm.recall(q.text, { scope: SCOPE, limit: K, threshold: 0, vector: q.vector });
    const recallWith = (profile: RecallProfile, text: string, vector?: Float32Array): Promise<RecallResult> =>
      engram.recall(text, { scope: SCOPE, limit: K, threshold: 0, profile, vector });

    // Every system is loaded first, then the queries are interleaved (query i runs on every
    // system, in an order rotated by i), so load changes on a shared machine hit all alike.
    const results: RecallResult[] = [];
    const seedTop: string[][] = [];
    const systems: TimedSystem[] = [
      {
        name: 'Engram recall, profile engram (embedding excluded)',
        n: queries.length,
        ingestPerSecond: size / ingestSeconds,
        run: async (q, i) => void (results[i] = await recallWith('engram', q.text, q.vector)),
      },
      {
        // The same instance after every query ran once: its token cache holds every pool document.
        name: 'Engram recall, profile engram, warm token cache (embedding excluded)',
        n: queries.length,
        run: async (q) => void (await warm.recall(q.text, { scope: SCOPE, limit: K, threshold: 0, vector: q.vector })),
      },
      {
        name: 'Engram recall, profile seed (embedding excluded)',
        n: queries.length,
        run: async (q, i) =>
          void (seedTop[i] = (await recallWith('seed', q.text, q.vector)).hits.map((h) => h.memory.id)),
      },
      {
        name: 'Engram recall, profile engram (embedding included)',
        n: queries.length,
        // Its own instance: its token cache must not warm the one of the rows above.
        run: async (q) =>
          void (await embeddingIncluded.recall(q.text, { scope: SCOPE, limit: K, threshold: 0, profile: 'engram' })),
      },
      {
        name: 'exact Float32Array scan (floor, dense only)',
        n: queries.length,
        run: async (q) => void exactTopK(corpus.matrix, corpus.dim, q.vector, K),
      },
    ];
    // Peers run in worker threads: each has a heap of its own (see bench/lib/peer-worker.ts).
    const peers: Array<[string, PeerKind, number]> = [
      [
        'reference design: every vector read from SQLite per query + pool BM25 fusion',
        'reference',
        size >= 50_000 ? slowQueries : queries.length,
      ],
    ];
    if (size <= oramaMax) peers.push(['Orama 3 hybrid search (in memory)', 'orama', queries.length]);
    if (size <= mem0Max) {
      peers.push(['mem0ai Memory.search (infer off, memory/SQLite vector store)', 'mem0', queries.length]);
    }
    const opened: WorkerPeer[] = [];
    for (const [name, kind, n] of peers) {
      log(`${name}: loading…`);
      const system = await openPeerInWorker(kind, corpus, queryVectors);
      opened.push(system);
      systems.push({
        name,
        n,
        ingestPerSecond: size / system.ingestSeconds,
        run: async (q) => (await system.search(q.text, q.vector, K)).ms,
      });
    }
    const times = await interleave(systems, queries);
    for (const [j, system] of systems.entries()) {
      rows.push(
        row(size, system.name, times.wall[j] ?? [], {
          ingestPerSecond: system.ingestPerSecond,
          cpuMean: mean(times.cpu[j] ?? []),
        }),
      );
    }
    const stages = {
      denseMs: mean(results.map((r) => r.timings.denseMs)),
      lexicalMs: mean(results.map((r) => r.timings.lexicalMs)),
      rankMs: mean(results.map((r) => r.timings.rankMs)),
      totalMs: mean(results.map((r) => r.timings.totalMs)),
      poolSize: mean(results.map((r) => r.poolSize)),
    };

    const commonResults: RecallResult[] = [];
    const commonTimes = await timeQueries(COMMON_QUERIES.length, async (i) => {
      commonResults.push(await recallWith('engram', COMMON_QUERIES[i] as string, commonVectors[i]));
    });
    rows.push(row(size, 'Engram recall, common-words queries (embedding excluded)', commonTimes));

    // Exactness: store dense top-10 vs exact scan; facade seed top-10 vs an exact seed pipeline.
    let denseExact = 0;
    let seedExact = 0;
    const pool = candidatePoolSize(K, size, true);
    for (const [qi, q] of queries.entries()) {
      const exact = exactTopK(corpus.matrix, corpus.dim, q.vector, pool);
      const dense = await store.denseSearch({ filter: { scope: SCOPE }, vector: q.vector, model: raw.model, limit: K });
      const exactTop = exact.slice(0, K).map((e) => ({ id: `m${e.index}`, score: e.score }));
      if (
        sameTop(
          dense.map((d) => d.id),
          exactTop,
        )
      )
        denseExact += 1;
      const seedExactTop = referenceRank(
        q.text,
        exact.map((e) => ({ id: `m${e.index}`, text: corpus.texts[e.index] as string, cosine: e.score })),
        K,
      );
      if (sameTop(seedTop[qi] ?? [], seedExactTop)) seedExact += 1;
    }
    await engram.close();
    await embeddingIncluded.close();
    await warm.close();
    await store.close();
    for (const system of opened) await system.close();
    rmSync(dir, { recursive: true, force: true });

    const report: SizeReport = {
      size,
      rows,
      denseTop10Exact: denseExact / queries.length,
      seedTop10Exact: seedExact / queries.length,
      stages,
      commonLexicalMs: mean(commonResults.map((r) => r.timings.lexicalMs)),
    };
    reports.push(report);
    for (const r of rows) log(`  ${r.system}: p50 ${fmt(r.p50, 2)} ms, p95 ${fmt(r.p95, 2)} ms`);
    log(
      `  dense top-10 exact: ${(report.denseTop10Exact * 100).toFixed(1)}%, seed top-10 exact: ${(report.seedTop10Exact * 100).toFixed(1)}%`,
    );
  }
  await raw.close?.();
  const seconds = (performance.now() - runStart) / 1000;

  if (args.flags.has('json')) {
    process.stdout.write(
      `${JSON.stringify({ sizes, queries: queries.length, ingestWithEmbedding, seconds, reports }, null, 2)}\n`,
    );
    return;
  }
  const out: string[] = [];
  out.push(
    `Recall speed — one scope, top ${K}, threshold 0, ${queries.length} LoCoMo questions as queries ` +
      `(slow reference design at ≥ 50k: ${slowQueries} queries). Corpus: ${base.length} real LoCoMo turns with real ` +
      `${raw.model} vectors, repeated with variations (other speaker name + suffix; vector + Gaussian noise, ` +
      `‖noise‖ ≈ 0.6, re-normalised). Machine: ${process.platform} ${process.arch}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}; ` +
      `1-min load average ${loadAtStart.toFixed(2)} at start, ${(loadavg()[0] ?? 0).toFixed(2)} at end (other processes share the machine).`,
    '',
  );
  for (const r of reports) {
    const engramP50 = (r.rows[0] as Row).p50;
    out.push(`### ${r.size.toLocaleString('en-US')} memories`, '');
    out.push(
      markdownTable(
        ['system', 'queries', 'p50 ms', 'p95 ms', 'mean ms', 'p50 ÷ Engram p50', 'CPU ms/q', 'ingest memories/s'],
        r.rows.map((x) => [
          x.system,
          String(x.queries),
          fmt(x.p50, 2),
          fmt(x.p95, 2),
          fmt(x.mean, 2),
          `${fmt(x.p50 / engramP50, 1)}×`,
          x.cpuMean === undefined ? '' : fmt(x.cpuMean, 2),
          x.ingestPerSecond === undefined ? '' : x.ingestPerSecond.toFixed(0),
        ]),
      ),
      '',
      `Top-10 exactness: store dense search = exact scan in ${(r.denseTop10Exact * 100).toFixed(1)}% of queries; ` +
        `facade profile seed = exact seed pipeline (exact pool, pool BM25, fusion) in ${(r.seedTop10Exact * 100).toFixed(1)}%. ` +
        `Engram stage means (ms): dense ${fmt(r.stages['denseMs'], 2)}, lexical ${fmt(r.stages['lexicalMs'], 2)}, ` +
        `rank ${fmt(r.stages['rankMs'], 2)}, total ${fmt(r.stages['totalMs'], 2)}, pool ${fmt(r.stages['poolSize'], 0)} rows; ` +
        `common-words queries: lexical ${fmt(r.commonLexicalMs, 2)} ms.`,
      '',
    );
  }
  out.push(
    `Ingest with embedding (addMany of ${ingestTexts.length} LoCoMo turns, batches of 250, default embedder uncached): ` +
      `${ingestWithEmbedding.toFixed(0)} memories/s.`,
    '',
    `Run time ${seconds.toFixed(0)} s.`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
