/**
 * Searcher latency at N memories spread over every memory type (default 10,000), fast mode:
 * p50 / p95 of the core recall alone, of the fast search with paths in parallel, and of the same
 * search with paths run one after another.
 *
 *   npx tsx bench/search-latency.ts [--size 10000] [--queries 200] [--store sqlite|postgres] [--data FILE]
 *     [--baseline DIR] [--own-stores] [--lower-bound] [--types T1,T2] [--json]
 *
 * `--types`: every method reads those memory types only (e.g. `WorkingMemory`: the search then runs
 * the working path alone, with no dense channel).
 *
 * `--baseline DIR`: a checkout of another commit (e.g. `git worktree add /tmp/base main~1`) whose
 * whole read path — its store code over a copy of the store file (PostgreSQL: the same database) and
 * its facade — runs the same three methods beside this one in the same process, interleaved query
 * by query, so a change to any layer is measured; the report adds its three rows, each method's p50
 * against its baseline, and in how many queries the two returned the same hits in the same order
 * with the same scores and explanations. Each side reads its own store with the same methods, so a
 * checkout against itself gives 1.00 (0.98–1.03 over three runs).
 *
 * `--lower-bound` (SQLite, all types): two more methods, called straight on the store with the
 * same query vector: the core recall's pipeline (`runRecall`, no facade) and the least a fast search
 * can cost (bench/lib/search-lower-bound: the searcher's store calls and fusion, nothing around
 * them). The report says in how many queries the bound returned the search's hits and scores, and
 * the bound plus what the facade adds to the recall (recall p50 − core recall p50) against the
 * recall: what the searcher would cost beside the recall if its own machinery took no time at all.
 *
 * `--own-stores` (SQLite): each method reads its own copy of the store file, with its own caches.
 * In one shared store a method finds the rows and pool documents that the methods before it read
 * for the same query: with its own store every query is a first query for every method.
 *
 * `--store postgres` starts a throwaway PostgreSQL from the machine's binaries (test/support/pg-cluster):
 * its queries run in server processes, so paths issued in parallel really overlap; better-sqlite3
 * answers synchronously inside the Node thread, so there "parallel" paths can only interleave.
 *
 * Corpus: bench/lib/synthetic-corpus over real LoCoMo turns with their real USE-lite vectors
 * (copies perturbed), stored in a fresh SQLite file through the facade; types assigned round-robin
 * by the shares below. Queries: LoCoMo questions (vectors read from the bench cache before the
 * runs, so embedding is a lookup in memory in every method). One process, warm-up of 20 queries
 * per method, methods interleaved per query in an order shuffled afresh for each query (seeded, so
 * runs repeat it): drift hits every method alike, and each follows each other one about equally
 * often. A fixed rotation did not: a method always ran after the same one, and one that runs after
 * a search of the same query finds its caches warm.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import type { Embedder } from '../src/embed/embedder.js';
import { Engram } from '../src/engram.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import type { MemoryType } from '../src/model/memory-type.js';
import type { RecallResult } from '../src/model/api.js';
import type { Scope } from '../src/model/scope.js';
import type { SearchHit, SearchResult } from '../src/model/search-result.js';
import { runRecall } from '../src/recall/recall-pipeline.js';
import { ENGRAM_PROFILE } from '../src/recall/recall-profile.js';
import type { MemoryStore } from '../src/store/memory-store.js';
import { openStore } from '../src/store/open-store.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { startPgCluster, type PgCluster } from '../test/support/pg-cluster.js';
import { parseArgs } from './lib/args.js';
import { openBenchEmbedder } from './lib/bench-embedder.js';
import { sameHits } from './lib/baseline-searcher.js';
import { openBaselineStack, type BaselineStack } from './lib/baseline-stack.js';
import { fmt, markdownTable, mean, percentile } from './lib/stats.js';
import { lowerBoundSearch } from './lib/search-lower-bound.js';
import { shuffled } from './lib/shuffled.js';
import { buildCorpus, mulberry32 } from './lib/synthetic-corpus.js';

const DEFAULT_DATA = defaultLocomoData();

/** Share of the corpus per type (sums to 100). */
const TYPE_SHARES: Array<[MemoryType, number]> = [
  ['LongTermMemory', 40],
  ['UserMemory', 15],
  ['WorkingMemory', 3],
  ['ToolSchemaMemory', 8],
  ['ToolTrajectoryMemory', 8],
  ['SkillMemory', 8],
  ['PreferenceMemory', 10],
  ['RawFileMemory', 4],
  ['OuterMemory', 4],
];

function typeAt(i: number): MemoryType {
  let slot = i % 100;
  for (const [type, share] of TYPE_SHARES) {
    if (slot < share) return type;
    slot -= share;
  }
  return 'LongTermMemory';
}

async function main(): Promise<void> {
  const args = parseArgs(
    process.argv.slice(2),
    ['size', 'queries', 'data', 'store', 'baseline', 'types'],
    ['json', 'own-stores', 'lower-bound'],
  );
  const storeKind = args.values.get('store') ?? 'sqlite';
  const size = Number(args.values.get('size') ?? 10_000);
  const nQueries = Number(args.values.get('queries') ?? 200);
  const typesArg = args.values.get('types');
  const types = typesArg === undefined ? undefined : (typesArg.split(',') as MemoryType[]);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  if (args.flags.has('lower-bound') && (storeKind !== 'sqlite' || types !== undefined || args.flags.has('own-stores')))
    throw new Error(
      '--lower-bound reads the one SQLite store over every type: not with --store, --types or --own-stores',
    );

  const conversations = await readLocomoBench(args.values.get('data') ?? DEFAULT_DATA);
  const base = conversations.flatMap((c) => c.memories.map((m) => m.text));
  const questions = conversations.flatMap((c) => c.questions.map((q) => q.question)).slice(0, nQueries);
  const cached = await openBenchEmbedder();
  const baseVectors = await cached.embed(base);
  const questionVectors = await cached.embed(questions);
  const corpus = buildCorpus(
    base.map((text, i) => ({ text, vector: baseVectors[i] as Float32Array })),
    size,
  );
  const known = new Map<string, Float32Array>();
  corpus.texts.forEach((t, i) => known.set(t, corpus.row(i)));
  // Queries are known before the first method runs: otherwise whichever method met a question
  // first paid a read of the bench's embedding cache (about 0.1 ms) that the others did not.
  questions.forEach((q, i) => {
    if (!known.has(q)) known.set(q, questionVectors[i] as Float32Array);
  });
  // Corpus vectors come from the synthetic corpus; anything else from the cached model.
  const embedder: Embedder = {
    model: cached.model,
    dim: cached.dim,
    async embed(texts) {
      const missing = texts.filter((t) => !known.has(t));
      const fresh = missing.length > 0 ? await cached.embed(missing) : [];
      missing.forEach((t, i) => known.set(t, fresh[i] as Float32Array));
      return texts.map((t) => known.get(t) as Float32Array);
    },
  };

  const dir = mkdtempSync(join(tmpdir(), 'engram-search-latency-'));
  let cluster: PgCluster | undefined;
  let store: MemoryStore;
  if (storeKind === 'postgres') {
    cluster = await startPgCluster();
    store = await openStore(cluster.url);
  } else store = createSqliteStore({ path: join(dir, 'l.db') });
  const engram = await Engram.open({ store, embedder, trackUsage: false, ownResources: false });
  const scope = { tenant: 'bench', user: 'u' };
  let own: Awaited<ReturnType<typeof ownStores>> | undefined;
  let baseline: BaselineStack | undefined;
  try {
    const t0 = performance.now();
    for (let start = 0; start < size; start += 1000) {
      const batch = corpus.texts.slice(start, start + 1000).map((text, j) => ({ text, type: typeAt(start + j) }));
      await engram.addMany(batch, { scope });
    }
    log(`stored ${size} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // With --own-stores every method reads its own copy of the store file: no method finds the
    // rows, pool documents or filter verdicts another read for the same query, so each query is a
    // first query for every method (in one shared store the method right after another is favoured).
    own = await ownStores(args.flags.has('own-stores') && storeKind === 'sqlite', dir, store, engram);
    const baselineDir = args.values.get('baseline');
    if (baselineDir !== undefined) {
      const source = cluster ? { url: cluster.url } : { sqlitePath: own.copy('baseline') };
      baseline = await openBaselineStack(baselineDir, source, embedder);
    }
    const recaller = await own.engram('recall', embedder);
    const parallel = await own.engram('parallel', embedder);
    const sequential = await own.engram('sequential', embedder);
    const base = baseline;
    const read = { scope, types };
    const straight = args.flags.has('lower-bound') ? straightOnStore(store, scope, embedder) : undefined;
    const methods: Record<string, (q: string) => Promise<unknown>> = {
      [`core recall (limit 10, ${types === undefined ? 'all types' : types.join(', ')})`]: (q) =>
        recaller.recall(q, { ...read, limit: 10, threshold: 0 }),
      'fast search, paths in parallel': (q) => parallel.search(q, { ...read, topK: 10 }),
      'fast search, paths sequential': (q) => sequential.search(q, { ...read, topK: 10, sequential: true }),
      ...(base
        ? {
            [`core recall, baseline ${baselineDir}`]: (q: string) =>
              base.recall(q, { ...read, limit: 10, threshold: 0 }),
            [`fast search, baseline ${baselineDir}`]: (q: string) => base.search(q, { ...read, topK: 10 }),
            [`fast search, paths sequential, baseline ${baselineDir}`]: (q: string) =>
              base.search(q, { ...read, topK: 10, sequential: true }),
          }
        : {}),
      ...(straight ? { [CORE_RECALL]: straight.recall, [LOWER_BOUND]: straight.search } : {}),
    };
    const times = new Map<string, number[]>(Object.keys(methods).map((m) => [m, []]));
    const load = [loadavg()[0] ?? 0];
    for (const q of questions.slice(0, 20)) for (const run of Object.values(methods)) await run(q);
    let same = 0;
    let sameRecalls = 0;
    let sameBound = 0;
    const entries = Object.entries(methods);
    const random = mulberry32(2025);
    for (const q of questions) {
      // A fresh order per query: a search right after another of the same query finds its caches
      // (pool documents, rows, filter verdicts) warm, so a fixed order would favour the later ones.
      const answers = new Map<string, unknown>();
      for (const [name, run] of shuffled(entries, random)) {
        const start = performance.now();
        answers.set(name, await run(q));
        times.get(name)?.push(performance.now() - start);
      }
      const [recallName, parallelName, , baselineRecallName, baselineName] = Object.keys(methods);
      const parallel = answers.get(parallelName as string) as SearchResult;
      if (baseline && sameHits(parallel, answers.get(baselineName as string) as SearchResult)) same++;
      const recalled = (name: string | undefined): RecallResult => answers.get(name as string) as RecallResult;
      if (baseline && sameHits(recalled(recallName), recalled(baselineRecallName))) sameRecalls++;
      if (straight && sameRanking(parallel.hits, answers.get(LOWER_BOUND) as SearchHit[])) sameBound++;
    }
    load.push(loadavg()[0] ?? 0);
    const recallP50 = percentile(times.values().next().value ?? [], 50);
    const rows = [...times.entries()].map(([name, t]) => [
      name,
      fmt(percentile(t, 50), 2),
      fmt(percentile(t, 95), 2),
      fmt(mean(t), 2),
      fmt(percentile(t, 50) / recallP50, 2),
    ]);
    if (args.flags.has('json')) {
      process.stdout.write(
        `${JSON.stringify(Object.fromEntries([...times.entries()].map(([n, t]) => [n, { p50: percentile(t, 50), p95: percentile(t, 95), mean: mean(t) }])), null, 2)}\n`,
      );
      return;
    }
    process.stdout.write(
      `${storeKind}: ${size} memories over ${TYPE_SHARES.length} types, ${questions.length} queries, ms per call; ` +
        `load average ${load.map((l) => l.toFixed(2)).join(' → ')}\n\n`,
    );
    process.stdout.write(`${markdownTable(['method', 'p50', 'p95', 'mean', 'p50 / recall p50'], rows)}\n`);
    if (baseline) {
      const p50 = [...times.values()].map((t) => percentile(t, 50));
      process.stdout.write(
        `\nagainst the baseline (its store code and facade over the same data, interleaved): recall p50 ÷ baseline ` +
          `${fmt((p50[0] as number) / (p50[3] as number), 2)}, parallel search p50 ÷ baseline ` +
          `${fmt((p50[1] as number) / (p50[4] as number), 2)}, sequential search p50 ÷ baseline ` +
          `${fmt((p50[2] as number) / (p50[5] as number), 2)}; the same hits, order, scores and explanations in ` +
          `${sameRecalls} of ${questions.length} recalls and ${same} of ${questions.length} searches\n`,
      );
    }
    if (straight) {
      const p50 = (name: string): number => percentile(times.get(name) ?? [], 50);
      const recall = p50([...times.keys()][0] as string);
      const facade = recall - p50(CORE_RECALL);
      process.stdout.write(
        `\nlower bound: the same hits, order and scores as the parallel search in ${sameBound} of ` +
          `${questions.length} queries; bound ÷ recall ${fmt(p50(LOWER_BOUND) / recall, 2)}; with the recall's ` +
          `facade cost (${fmt(facade, 3)} ms) added, ${fmt((p50(LOWER_BOUND) + facade) / recall, 2)}\n`,
      );
    }
  } finally {
    await baseline?.close();
    await own?.close();
    await engram.close();
    await store.close();
    await cluster?.stop();
    await cached.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

const CORE_RECALL = 'core recall, straight on the store (runRecall, no facade)';
const LOWER_BOUND = 'fast search lower bound, straight on the store';

/**
 * The core recall pipeline and the fast search's lower bound over `store`, each called as the
 * facade calls them: the trimmed query, its vector from `embedder`, the default weights.
 */
function straightOnStore(store: MemoryStore, scope: Scope, embedder: Embedder) {
  const profile = ENGRAM_PROFILE;
  const weights = profile.resolveWeights({});
  // The facade embeds the trimmed query: so do these.
  const vectorOf = async (text: string): Promise<Float32Array> => (await embedder.embed([text]))[0] as Float32Array;
  const search = lowerBoundSearch({
    store,
    scope,
    space: { model: embedder.model, dim: embedder.dim },
    profile,
    weights,
  });
  return {
    recall: async (q: string) => {
      const query = q.trim();
      const filter = { scope, statuses: ['activated' as const], validAt: new Date().toISOString() };
      const queryVector = await vectorOf(query);
      return runRecall(
        { store },
        { query, queryVector, model: embedder.model, filter, limit: 10, threshold: 0, weights, profile },
      );
    },
    search: async (q: string) => {
      const query = q.trim();
      return search(query, await vectorOf(query));
    },
  };
}

/** The same memories in the same order with the same relevance. */
function sameRanking(a: readonly SearchHit[], b: readonly SearchHit[]): boolean {
  return a.length === b.length && a.every((h, i) => h.memory.id === b[i]?.memory.id && h.relevance === b[i]?.relevance);
}

/**
 * The facade each method reads through: the loaded one, or (`separate`) one over a copy of the
 * store file per method, each with its own caches; `copy` copies the file for a baseline. `close`
 * closes the copies.
 */
async function ownStores(separate: boolean, dir: string, store: MemoryStore, engram: Engram) {
  const opened: Array<{ close(): Promise<void> }> = [];
  // Closed first, so the file holds every write (none left in the write-ahead log); closing twice is harmless.
  if (separate) {
    await engram.close();
    await store.close();
  }
  // A copy of the store file (with its write-ahead log, which holds the writes of a store still open).
  const copy = (name: string): string => {
    const path = join(dir, `${name}.db`);
    copyFileSync(join(dir, 'l.db'), path);
    if (existsSync(join(dir, 'l.db-wal'))) copyFileSync(join(dir, 'l.db-wal'), `${path}-wal`);
    return path;
  };
  const storeFor = async (name: string): Promise<MemoryStore> => {
    if (!separate) return store;
    const copied = createSqliteStore({ path: copy(name) });
    opened.push(copied);
    return copied;
  };
  return {
    copy,
    async engram(name: string, embedder: Embedder): Promise<Engram> {
      if (!separate) return engram;
      const copy = await Engram.open({ store: await storeFor(name), embedder, trackUsage: false, ownResources: false });
      opened.unshift(copy);
      return copy;
    },
    async close(): Promise<void> {
      for (const o of opened) await o.close();
    },
  };
}
