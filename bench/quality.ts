/**
 * Retrieval quality on a LoCoMo-format file (default: ../shared/data/locomo-dev.json), through
 * the evaluation library `engram eval` uses (src/eval).
 *
 *   npx tsx bench/quality.ts [--data FILE] [--json] [--k 5,10,20] [--methods bm25,bm25-stemmed,dense,rrf,seed,engram]
 *
 * One memory per turn, each conversation in its own scope (user = sample_id). Questions of
 * categories 1–4 whose evidence names real turns. Turn-level evidence recall@k / hit@k and
 * session-level recall@k, per category, per conversation and overall. Threshold 0: this measures ranking.
 */
import { performance } from 'node:perf_hooks';

import { apiRanker } from '../src/eval/eval-ranker.js';
import type { EvalRanker } from '../src/eval/eval-ranker.js';
import { summarize } from '../src/eval/eval-metrics.js';
import { evaluate, type EvalReport } from '../src/eval/run-eval.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { openBenchEmbedder, BENCH_EMBEDDING_CACHE } from './lib/bench-embedder.js';
import { openLocomoFacade } from './lib/facade-rankers.js';
import { LOCOMO_TENANT, locomoCases, sampleOf, sessionRecall } from './lib/locomo-eval.js';
import { defaultLocomoData, LOCOMO_CATEGORY_NAMES, readLocomoBench } from './lib/locomo-questions.js';
import { baselineRankers } from './lib/quality-rankers.js';
import { fmt, markdownTable } from './lib/stats.js';

const ALL_METHODS = ['bm25', 'bm25-stemmed', 'dense', 'rrf', 'seed', 'engram'] as const;
const CATEGORIES = [1, 2, 3, 4].map((c) => LOCOMO_CATEGORY_NAMES[c as 1 | 2 | 3 | 4]);

function parseMethods(text: string): string[] {
  const methods = text.split(',').map((m) => m.trim());
  for (const m of methods) {
    if (!(ALL_METHODS as readonly string[]).includes(m))
      throw new Error(`unknown method ${m} (known: ${ALL_METHODS.join(', ')})`);
  }
  return methods;
}

/** Figures of a report by conversation (sample id). */
function bySample(report: EvalReport): Map<string, ReturnType<typeof summarize>> {
  const samples = [...new Set(report.cases.map((c) => sampleOf(c.id)))];
  return new Map(
    samples.map((s) => [
      s,
      summarize(
        report.cases.filter((c) => sampleOf(c.id) === s),
        report.ks,
        ['sessionRecall'],
      ),
    ]),
  );
}

function markdown(reports: EvalReport[], methods: string[], header: string): string {
  const ks = (reports[0] as EvalReport).ks;
  const cols = ['method', ...ks.flatMap((k) => [`R@${k}`, `H@${k}`]), ...ks.map((k) => `SR@${k}`), 'ms/q'];
  const cells = (s: ReturnType<typeof summarize>): string[] => [
    ...ks.flatMap((k) => [fmt(s.recall[k]), fmt(s.hit[k])]),
    ...ks.map((k) => fmt(s.extra['sessionRecall']?.[k])),
  ];
  const out = [header, '', 'Overall (R = turn-level evidence recall, H = hit, SR = session-level recall):', ''];
  out.push(
    markdownTable(
      cols,
      reports.map((r) => [r.ranker, ...cells(r.overall), r.msPerQuery.toFixed(2)]),
    ),
  );
  out.push('', 'Per category:', '');
  const catRows = CATEGORIES.flatMap((cat) =>
    reports.map((r, i) => [
      `${cat} (n=${r.byCategory[cat]?.n ?? 0})`,
      methods[i] as string,
      ...cells(r.byCategory[cat] ?? r.overall),
    ]),
  );
  out.push(markdownTable(['category', 'method', ...cols.slice(1, -1)], catRows));
  out.push('', 'Per conversation:', '');
  const convRows = reports.flatMap((r, i) =>
    [...bySample(r)].map(([s, sum]) => [`${s} (n=${sum.n})`, methods[i] as string, ...cells(sum)]),
  );
  out.push(markdownTable(['conversation', 'method', ...cols.slice(1, -1)], convRows));
  return out.join('\n');
}

function asJson(info: Record<string, unknown>, reports: readonly EvalReport[], methods: readonly string[]): string {
  const methodsOut = reports.map((r, i) => ({
    method: methods[i],
    description: r.ranker,
    msPerQuery: r.msPerQuery,
    overall: r.overall,
    byCategory: r.byCategory,
    byConversation: Object.fromEntries(bySample(r)),
  }));
  return `${JSON.stringify({ ...info, methods: methodsOut }, null, 2)}\n`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'k', 'methods'], ['json']);
  const data = args.values.get('data') ?? defaultLocomoData();
  const ks = parseIntList(args.values.get('k') ?? '5,10,20', 'k').sort((a, b) => a - b);
  const methods = parseMethods(args.values.get('methods') ?? ALL_METHODS.join(','));
  const log = (line: string): void => void process.stderr.write(`${line}\n`);

  const t0 = performance.now();
  const conversations = await readLocomoBench(data);
  const cases = conversations.flatMap(locomoCases);
  const nTurns = conversations.reduce((n, c) => n + c.turns.length, 0);
  const nAll = conversations.reduce((n, c) => n + c.questions.length, 0);
  log(`${data}: ${conversations.length} conversations, ${nTurns} turns, ${cases.length} of ${nAll} questions scored`);

  const embedder = openBenchEmbedder();
  const embedStart = performance.now();
  await embedder.embed([...conversations.flatMap((c) => c.memories.map((m) => m.text)), ...cases.map((c) => c.query)]);
  const embedSeconds = (performance.now() - embedStart) / 1000;
  log(`embedded in ${embedSeconds.toFixed(1)} s (cache: ${BENCH_EMBEDDING_CACHE})`);

  const facade = await openLocomoFacade(embedder, conversations);
  const rankers: Record<string, EvalRanker> = {
    ...baselineRankers(embedder, conversations),
    seed: {
      ...apiRanker(facade.engram, { mode: 'recall', profile: 'seed' }),
      name: 'reference fusion, exact (facade profile "seed")',
    },
    engram: {
      ...apiRanker(facade.engram, { mode: 'recall', profile: 'engram' }),
      name: 'Engram default (facade profile "engram")',
    },
  };
  const reports: EvalReport[] = [];
  try {
    for (const method of methods) {
      const ranker = rankers[method] as EvalRanker;
      const maxK = ks[ks.length - 1] as number;
      const report = await evaluate(ranker, cases, {
        ks,
        scope: { tenant: LOCOMO_TENANT },
        depth: maxK,
        extra: { sessionRecall },
      });
      reports.push(report);
      log(
        `${method}: R@${ks[1] ?? ks[0]} ${fmt(report.overall.recall[ks[1] ?? (ks[0] as number)])} (${report.msPerQuery.toFixed(2)} ms/query)`,
      );
    }
  } finally {
    await facade.close();
    await embedder.close?.();
  }
  const seconds = (performance.now() - t0) / 1000;
  if (args.flags.has('json')) {
    const info = {
      data,
      conversations: conversations.length,
      turns: nTurns,
      questions: cases.length,
      questionsInFile: nAll,
      ks,
      embedder: embedder.model,
      embedSeconds,
      seconds,
    };
    process.stdout.write(asJson(info, reports, methods));
    return;
  }
  const header =
    `LoCoMo retrieval quality — ${data.split('/').pop() ?? data}: ${conversations.length} conversations, ${nTurns} turns, ` +
    `${cases.length} questions (categories 1–4 with real evidence), embedder ${embedder.model}, threshold 0.`;
  process.stdout.write(
    `${markdown(reports, methods, header)}\n\nRun time ${seconds.toFixed(1)} s (embedding ${embedSeconds.toFixed(1)} s).\n`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
