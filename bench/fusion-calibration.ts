/**
 * Fusion that suits the embedder in use: for each embedder, the default recall's fixed lexical
 * trust (0.5) against the trust `calibrateFusion` chooses on each conversation's own
 * self-supervised pairs (no labels), a trust tuned on the labels of the other conversations
 * (leave one conversation out) and the best trust on all of dev (an upper bound, fitted), on the
 * same candidate pools; LoCoMo dev and the hand-written indirect cases. One run, every embedder.
 *
 *   npx tsx bench/fusion-calibration.ts [--data FILE] [--embedders use-lite,onnx-random,hashed-bow] [--json]
 */
import type { EvalSummary } from '../src/eval/eval-metrics.js';
import { calibrateFusion, type FusionCalibration } from '../src/recall/calibrate-fusion.js';
import { parseArgs } from './lib/args.js';
import {
  BENCH_EMBEDDER_LABELS,
  BENCH_EMBEDDER_NAMES,
  openEmbedderUnderTest,
  type BenchEmbedderName,
} from './lib/bench-embedders.js';
import { LOCOMO_TENANT } from './lib/locomo-eval.js';
import { INDIRECT_KS, LOCOMO_KS, locomoPools, openLocomoStore } from './lib/locomo-pools.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import type { PooledCase } from './lib/ranking-pools.js';
import { scoreRanker } from './lib/ranking-score.js';
import { variant, type PoolRanker } from './lib/ranking-variants.js';
import { fmt, markdownTable } from './lib/stats.js';

const GRID = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

interface Row {
  name: string;
  locomo: EvalSummary;
  indirect: EvalSummary | null;
}

interface EmbedderResult {
  embedder: BenchEmbedderName;
  model: string;
  calibrations: Record<string, FusionCalibration & { ms: number }>;
  rows: Row[];
  looChosen: Record<string, number>;
}

const meanRecall = (s: EvalSummary): number =>
  LOCOMO_KS.reduce((a, k) => a + (s.recall[k] as number), 0) / LOCOMO_KS.length;

/** A ranker whose lexical trust depends on the case's group. */
function byGroup(trustOf: (group: string) => number): PoolRanker {
  const rankers = new Map<number, PoolRanker>();
  return (pc, k) => {
    const w = trustOf(pc.group);
    let r = rankers.get(w);
    if (r === undefined) rankers.set(w, (r = variant({ weights: { base: w, short: w } })));
    return r(pc, k);
  };
}

/** Leave one conversation out: the grid trust with the best mean R@k on the other conversations. */
function looTrusts(grid: Map<number, PoolRanker>, cases: readonly PooledCase[]): Record<string, number> {
  const groups = [...new Set(cases.map((c) => c.group))];
  const per = new Map(
    [...grid].map(([w, r]) => [w, new Map(groups.map((g) => [g, scoreRanker(r, cases, LOCOMO_KS, new Set([g]))]))]),
  );
  return Object.fromEntries(
    groups.map((held) => {
      let best = GRID[0] as number;
      let bestScore = -1;
      for (const [w, byG] of per) {
        let sum = 0;
        let n = 0;
        for (const [g, s] of byG) if (g !== held) [sum, n] = [sum + meanRecall(s) * s.n, n + s.n];
        if (sum / n > bestScore + 1e-12) [best, bestScore] = [w, sum / n];
      }
      return [held, best];
    }),
  );
}

async function runEmbedder(
  name: BenchEmbedderName,
  data: string,
  log: (line: string) => void,
): Promise<EmbedderResult> {
  const conversations = await readLocomoBench(data);
  const embedder = await openEmbedderUnderTest(
    name,
    conversations.flatMap((c) => c.memories.map((m) => m.text)),
  );
  const stored = await openLocomoStore('engram-calibration-', 'c.db', embedder, conversations, {});
  const { store } = stored;
  try {
    const calibrations: EmbedderResult['calibrations'] = {};
    for (const c of [...conversations.map((x) => x.sampleId), 'indirect']) {
      const start = performance.now();
      const cal = await calibrateFusion({ store, embedder }, { scope: { tenant: LOCOMO_TENANT, user: c } });
      calibrations[c] = { ...cal, ms: performance.now() - start };
      log(`${name} ${c}: ${cal.calibrated ? `trust ${cal.weights?.base}` : 'not calibrated'} (${cal.pairs} pairs)`);
    }
    const { locomo, indirect } = await locomoPools(stored, embedder, conversations, {
      locomo: LOCOMO_KS,
      indirect: INDIRECT_KS,
    });
    const grid = new Map(GRID.map((w) => [w, variant({ weights: { base: w, short: w } })]));
    const trustOf = (g: string): number => calibrations[g]?.weights?.base ?? 0.5;
    const calibratedConversations = conversations.map((c) => trustOf(c.sampleId));
    const meanCalibrated =
      Math.round((calibratedConversations.reduce((a, b) => a + b, 0) / calibratedConversations.length) * 20) / 20;
    const looChosen = looTrusts(grid, locomo);
    let oracle = 0.5;
    let oracleScore = -1;
    for (const [w, r] of grid) {
      const s = meanRecall(scoreRanker(r, locomo, LOCOMO_KS));
      if (s > oracleScore + 1e-12) [oracle, oracleScore] = [w, s];
    }
    const rankers: Array<[string, PoolRanker, PoolRanker | null]> = [
      ['fixed trust 0.5 (default)', grid.get(0.5) as PoolRanker, grid.get(0.5) as PoolRanker],
      [`calibrated on each store's own pairs (indirect: no pairs → 0.5)`, byGroup(trustOf), byGroup(trustOf)],
      [
        `mean calibrated trust of the LoCoMo stores (${meanCalibrated}) as the embedder's default`,
        byGroup(() => meanCalibrated),
        byGroup(() => meanCalibrated),
      ],
      ['label-tuned, leave one conversation out', byGroup((g) => looChosen[g] ?? 0.5), null],
      [
        `best single trust on all of dev (${oracle}, fitted)`,
        grid.get(oracle) as PoolRanker,
        grid.get(oracle) as PoolRanker,
      ],
    ];
    const rows = rankers.map(([label, r, ind]) => ({
      name: label,
      locomo: scoreRanker(r, locomo, LOCOMO_KS),
      indirect: ind === null ? null : scoreRanker(ind, indirect, INDIRECT_KS),
    }));
    return { embedder: name, model: embedder.model, calibrations, rows, looChosen };
  } finally {
    await stored.close();
  }
}

function render(results: readonly EmbedderResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(`### ${BENCH_EMBEDDER_LABELS[r.embedder]}`, '');
    out.push(
      markdownTable(
        ['store', 'pairs', 'dense MRR', 'BM25 MRR', 'chosen trust', 'ms'],
        Object.entries(r.calibrations).map(([store, c]) => [
          store,
          String(c.pairs),
          fmt(c.denseMrr),
          fmt(c.lexicalMrr),
          c.weights === null ? '— (too few pairs)' : String(c.weights.base),
          c.ms.toFixed(0),
        ]),
      ),
      '',
      `Leave-one-out trusts chosen on the labels: ${Object.entries(r.looChosen)
        .map(([g, w]) => `${g} ${w}`)
        .join(', ')}`,
      '',
    );
    out.push(
      markdownTable(
        ['trust', ...LOCOMO_KS.map((k) => `R@${k}`), ...INDIRECT_KS.map((k) => `ind H@${k}`), 'ind MRR'],
        r.rows.map((row) => [
          row.name,
          ...LOCOMO_KS.map((k) => fmt(row.locomo.recall[k])),
          ...INDIRECT_KS.map((k) => (row.indirect ? fmt(row.indirect.hit[k]) : '—')),
          row.indirect ? fmt(row.indirect.mrr) : '—',
        ]),
      ),
      '',
    );
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'embedders'], ['json']);
  const data = args.values.get('data') ?? defaultLocomoData();
  const names = (args.values.get('embedders') ?? BENCH_EMBEDDER_NAMES.join(',')).split(',') as BenchEmbedderName[];
  for (const n of names) if (!BENCH_EMBEDDER_NAMES.includes(n)) throw new Error(`unknown embedder ${n}`);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const results: EmbedderResult[] = [];
  for (const n of names) results.push(await runEmbedder(n, data, log));
  if (args.flags.has('json')) process.stdout.write(`${JSON.stringify({ data, results }, null, 2)}\n`);
  else process.stdout.write(`${render(results)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
