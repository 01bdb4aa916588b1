/**
 * Retrieval quality on a LoCoMo-format file (default: ../shared/data/locomo-dev.json).
 *
 *   npx tsx bench/quality.ts [--data FILE] [--json] [--k 5,10,20] [--methods bm25,dense,rrf,seed,engram]
 *
 * One memory per turn, each conversation in its own scope (user = sample_id). Questions of
 * categories 1–4 whose evidence names real turns. Turn-level evidence recall@k / hit@k and
 * session-level recall@k, per category and overall. Threshold 0 everywhere: this measures ranking.
 */
import { performance } from 'node:perf_hooks';

import { defaultLocomoData, readLocomoBench, LOCOMO_CATEGORY_NAMES, type LocomoCategory } from './lib/locomo-questions.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { evalQuestions, ScoreBoard, scoreCut, type EvalQuestion } from './lib/locomo-eval.js';
import { fmt, markdownTable } from './lib/stats.js';
import { openBenchEmbedder, BENCH_EMBEDDING_CACHE } from './lib/bench-embedder.js';
import { baselineRankers, type Ranker, type RankerFactory } from './lib/quality-rankers.js';
import { facadeRankers } from './lib/facade-rankers.js';

const DEFAULT_DATA = defaultLocomoData();
const ALL_METHODS = ['bm25', 'dense', 'rrf', 'seed', 'engram'] as const;

interface MethodResult {
  method: string;
  description: string;
  board: ScoreBoard;
  /** Mean ms per question (all cut-offs), excluding query embedding where the method allows. */
  msPerQuestion: number;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'k', 'methods'], ['json']);
  const data = args.values.get('data') ?? DEFAULT_DATA;
  const ks = parseIntList(args.values.get('k') ?? '5,10,20', 'k').sort((a, b) => a - b);
  const methods = (args.values.get('methods') ?? ALL_METHODS.join(',')).split(',').map((m) => m.trim());
  for (const m of methods) {
    if (!(ALL_METHODS as readonly string[]).includes(m))
      throw new Error(`unknown method ${m} (known: ${ALL_METHODS.join(', ')})`);
  }
  const log = (line: string): void => void process.stderr.write(`${line}\n`);

  const t0 = performance.now();
  const conversations = await readLocomoBench(data);
  const questions = new Map<string, EvalQuestion[]>(conversations.map((c) => [c.sampleId, evalQuestions(c)]));
  const nQuestions = [...questions.values()].reduce((n, qs) => n + qs.length, 0);
  const nTurns = conversations.reduce((n, c) => n + c.turns.length, 0);
  const nAll = conversations.reduce((n, c) => n + c.questions.length, 0);
  log(`${data}: ${conversations.length} conversations, ${nTurns} turns, ${nQuestions} of ${nAll} questions scored`);

  const embedder = openBenchEmbedder();
  const embedStart = performance.now();
  const allTexts = conversations.flatMap((c) => [
    ...c.memories.map((m) => m.text),
    ...(questions.get(c.sampleId) ?? []).map((q) => q.question),
  ]);
  await embedder.embed(allTexts);
  const embedSeconds = (performance.now() - embedStart) / 1000;
  log(`embedded ${allTexts.length} texts in ${embedSeconds.toFixed(1)} s (cache: ${BENCH_EMBEDDING_CACHE})`);

  const factories: Record<string, RankerFactory> = { ...baselineRankers(embedder), ...facadeRankers(embedder) };
  const maxK = ks[ks.length - 1] as number;
  const results: MethodResult[] = [];
  for (const method of methods) {
    const factory = factories[method] as RankerFactory;
    const board = new ScoreBoard(ks);
    let ms = 0;
    for (const conv of conversations) {
      const ranker: Ranker = await factory.open(conv);
      try {
        for (const q of questions.get(conv.sampleId) ?? []) {
          if (factory.perK) {
            for (const k of ks) {
              const start = performance.now();
              const ranked = await ranker.rank(q.question, k);
              ms += performance.now() - start;
              board.add(q.category, k, scoreCut(ranked, q.gold, k));
            }
          } else {
            const start = performance.now();
            const ranked = await ranker.rank(q.question, maxK);
            ms += performance.now() - start;
            for (const k of ks) board.add(q.category, k, scoreCut(ranked, q.gold, k));
          }
        }
      } finally {
        await ranker.close?.();
      }
    }
    results.push({ method, description: factory.description, board, msPerQuestion: ms / nQuestions });
    log(
      `${method}: R@${ks[1] ?? ks[0]} ${fmt(board.get('all', ks[1] ?? (ks[0] as number)).recall)} (${(ms / nQuestions).toFixed(2)} ms/question)`,
    );
  }
  for (const method of methods) await factories[method]?.close?.();
  await embedder.close?.();

  const seconds = (performance.now() - t0) / 1000;
  if (args.flags.has('json')) {
    const cats: Array<LocomoCategory | 'all'> = ['all', 1, 2, 3, 4];
    const json = {
      data,
      conversations: conversations.length,
      turns: nTurns,
      questions: nQuestions,
      questionsInFile: nAll,
      ks,
      embedder: embedder.model,
      embedSeconds,
      seconds,
      methods: results.map((r) => ({
        method: r.method,
        description: r.description,
        msPerQuestion: r.msPerQuestion,
        byCategory: Object.fromEntries(
          cats.map((c) => [String(c), Object.fromEntries(ks.map((k) => [String(k), r.board.get(c, k)]))]),
        ),
      })),
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }

  const out: string[] = [];
  out.push(
    `LoCoMo retrieval quality — ${data.split('/').pop() ?? data}: ${conversations.length} conversations, ${nTurns} turns, ` +
      `${nQuestions} questions (categories 1–4 with real evidence), embedder ${embedder.model}, threshold 0.`,
    '',
    'Overall (R = turn-level evidence recall, H = hit, SR = session-level recall):',
    '',
  );
  const header = ['method', ...ks.flatMap((k) => [`R@${k}`, `H@${k}`]), ...ks.map((k) => `SR@${k}`), 'ms/q'];
  out.push(
    markdownTable(
      header,
      results.map((r) => [
        r.description,
        ...ks.flatMap((k) => [fmt(r.board.get('all', k).recall), fmt(r.board.get('all', k).hit)]),
        ...ks.map((k) => fmt(r.board.get('all', k).sessionRecall)),
        r.msPerQuestion.toFixed(2),
      ]),
    ),
  );
  out.push('', 'Per category (turn-level recall R@k, hit H@k, session recall SR@k):', '');
  const catRows: string[][] = [];
  for (const c of [1, 2, 3, 4] as const) {
    for (const r of results) {
      const n = r.board.get(c, ks[0] as number).n;
      catRows.push([
        `${c} ${LOCOMO_CATEGORY_NAMES[c]} (n=${n})`,
        r.method,
        ...ks.flatMap((k) => [fmt(r.board.get(c, k).recall), fmt(r.board.get(c, k).hit)]),
        ...ks.map((k) => fmt(r.board.get(c, k).sessionRecall)),
      ]);
    }
  }
  out.push(markdownTable(['category', 'method', ...header.slice(1, -1)], catRows));
  out.push('', `Run time ${seconds.toFixed(1)} s (embedding ${embedSeconds.toFixed(1)} s).`);
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
