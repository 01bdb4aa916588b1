/**
 * What each ranking mechanism of the default recall is worth, on the same candidate pools:
 * LoCoMo (default ../shared/data/locomo-dev.json) and the hand-written indirect cases
 * (bench/cases/indirect-*.jsonl), with leave-one-conversation-out cross-validation of the two
 * constants the default carries (lexical trust and context weight).
 *
 *   npx tsx bench/ranking-ablation.ts [--data FILE] [--json]
 *
 * Kept mechanisms are removed one at a time from the default (through the recall's own rankPool,
 * with the write-side fields the mechanism reads hidden); removed mechanisms are added one at a
 * time (bench/lib/ranking-experiments.ts). Pools are the default recall's, built once per case and k.
 */
import type { EvalSummary } from '../src/eval/eval-metrics.js';
import type { Memory } from '../src/model/memory.js';
import { parseArgs } from './lib/args.js';
import { openBenchEmbedder } from './lib/bench-embedder.js';
import { LOCOMO_TENANT } from './lib/locomo-eval.js';
import { INDIRECT_KS, LOCOMO_KS, locomoPools, openLocomoStore } from './lib/locomo-pools.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import { listAll, type PooledCase } from './lib/ranking-pools.js';
import { scoreRanker } from './lib/ranking-score.js';
import { removedMechanisms } from './lib/ranking-experiments.js';
import {
  ALL_FIELDS,
  NO_FIELDS,
  previousDefault,
  stemmedBm25,
  variant,
  type PoolRanker,
} from './lib/ranking-variants.js';
import { fmt, markdownTable } from './lib/stats.js';

/** The rankers of the table: the default, each kept mechanism taken away, alternatives, removed ones. */
function rankers(
  neighbour: (m: Memory, d: number) => Memory | undefined,
  scopeMemories: (pc: PooledCase) => Memory[],
): Array<[string, PoolRanker]> {
  return [
    ['plain BM25, Porter-stemmed, whole scope (no vectors)', stemmedBm25(scopeMemories)],
    ['previous default (linear fusion, stemmed pool BM25 of the text, 0.15/0.30)', previousDefault],
    ['default: spread fusion + context (previous turn, day) + speaker', variant()],
    ['  − speaker', variant({ fields: { ...ALL_FIELDS, speaker: false } })],
    ['  − previous turn (background)', variant({ fields: { ...ALL_FIELDS, background: false } })],
    ['  − day stated', variant({ fields: { ...ALL_FIELDS, statedAt: false } })],
    ['  − all three (spread fusion of text BM25 and cosine only)', variant({ fields: NO_FIELDS })],
    ['  lexical trust 0.3', variant({ weights: { base: 0.3, short: 0.3 } })],
    ['  lexical trust 0.4', variant({ weights: { base: 0.4, short: 0.4 } })],
    ['  lexical trust 0.6', variant({ weights: { base: 0.6, short: 0.6 } })],
    ['  context weight 0.25', variant({ profile: { contextWeight: 0.25 } })],
    ['  context weight 1 (context counts like the turn)', variant({ profile: { contextWeight: 1 } })],
    ...Object.entries(removedMechanisms(neighbour)),
  ];
}

/** Leave-one-group-out: pick (trust, context weight) on the other groups by mean R@k, score the held-out one. */
function crossValidate(
  cases: readonly PooledCase[],
): Array<{ group: string; chosen: string; held: EvalSummary; fixed: EvalSummary }> {
  const grid: Array<[string, PoolRanker]> = [];
  for (const w of [0.3, 0.4, 0.5, 0.6]) {
    for (const c of [0.25, 0.5, 1])
      grid.push([
        `trust ${w}, context ${c}`,
        variant({ weights: { base: w, short: w }, profile: { contextWeight: c } }),
      ]);
  }
  const groups = [...new Set(cases.map((c) => c.group))];
  const mean = (s: EvalSummary): number =>
    LOCOMO_KS.reduce((a, k) => a + (s.recall[k] as number), 0) / LOCOMO_KS.length;
  const perGroup = grid.map(([, r]) => new Map(groups.map((g) => [g, scoreRanker(r, cases, LOCOMO_KS, new Set([g]))])));
  return groups.map((held) => {
    let best = 0;
    let bestScore = -1;
    perGroup.forEach((byGroup, i) => {
      let sum = 0;
      let n = 0;
      for (const g of groups) {
        if (g === held) continue;
        const s = byGroup.get(g) as EvalSummary;
        sum += mean(s) * s.n;
        n += s.n;
      }
      if (sum / n > bestScore) [best, bestScore] = [i, sum / n];
    });
    const fixed = perGroup[grid.findIndex(([name]) => name === 'trust 0.5, context 0.5')]?.get(held) as EvalSummary;
    return { group: held, chosen: grid[best]?.[0] ?? '', held: perGroup[best]?.get(held) as EvalSummary, fixed };
  });
}

function pooled(weighted: Array<{ held: EvalSummary }>, k: number): number {
  const n = weighted.reduce((a, w) => a + w.held.n, 0);
  return weighted.reduce((a, w) => a + (w.held.recall[k] as number) * w.held.n, 0) / n;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data'], ['json']);
  const data = args.values.get('data') ?? defaultLocomoData();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const conversations = await readLocomoBench(data);
  const embedder = openBenchEmbedder();
  const stored = await openLocomoStore('engram-ablation-', 'a.db', embedder, conversations);
  const { store } = stored;
  try {
    const { locomo, indirect } = await locomoPools(stored, embedder, conversations, {
      locomo: LOCOMO_KS,
      indirect: INDIRECT_KS,
    });
    log(`pools: ${locomo.length} LoCoMo cases, ${indirect.length} indirect cases`);
    const all = { items: await listAll(store, { tenant: LOCOMO_TENANT }) };
    const byScopeKey = new Map(all.items.map((m) => [`${m.scope.user ?? ''}|${m.key ?? ''}`, m]));
    const byUser = new Map<string, Memory[]>();
    for (const m of all.items) byUser.set(m.scope.user ?? '', [...(byUser.get(m.scope.user ?? '') ?? []), m]);
    const neighbour = (m: Memory, d: number): Memory | undefined => {
      const match = /^D(\d+):(\d+)$/.exec(m.key ?? '');
      return match === null ? undefined : byScopeKey.get(`${m.scope.user ?? ''}|D${match[1]}:${Number(match[2]) + d}`);
    };
    const table = rankers(neighbour, (pc) => byUser.get(pc.case.scope?.user ?? '') ?? []);
    const rows = table.map(([name, r]) => {
      const lo = scoreRanker(r, locomo, LOCOMO_KS);
      const ind = scoreRanker(r, indirect, INDIRECT_KS);
      log(`${name}: R@10 ${fmt(lo.recall[10])}`);
      return {
        name,
        locomo: lo,
        byCategory: Object.fromEntries(
          ['multi-hop', 'temporal', 'open-domain', 'single-hop'].map((cat) => [
            cat,
            scoreRanker(
              r,
              locomo.filter((p) => p.case.category === cat),
              LOCOMO_KS,
            ),
          ]),
        ),
        indirect: ind,
      };
    });
    const groups = [...new Set(locomo.map((p) => p.group))];
    const perConversation = table.slice(0, 3).map(([name, r]) => ({
      name,
      byGroup: Object.fromEntries(groups.map((g) => [g, scoreRanker(r, locomo, LOCOMO_KS, new Set([g]))])),
    }));
    const cv = crossValidate(locomo);
    const result = {
      data,
      rows,
      perConversation,
      cv,
      cvPooled: Object.fromEntries(LOCOMO_KS.map((k) => [k, pooled(cv, k)])),
    };
    if (args.flags.has('json')) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else process.stdout.write(`${render(result)}\n`);
  } finally {
    await stored.close();
  }
}

type Result = {
  rows: Array<{ name: string; locomo: EvalSummary; byCategory: Record<string, EvalSummary>; indirect: EvalSummary }>;
  perConversation: Array<{ name: string; byGroup: Record<string, EvalSummary> }>;
  cv: Array<{ group: string; chosen: string; held: EvalSummary; fixed: EvalSummary }>;
  cvPooled: Record<number, number>;
};

function render(r: Result): string {
  const out = ['LoCoMo (760 questions) R@k and R@10 per category; indirect cases (50) hit@k and MRR@10.', ''];
  out.push(
    markdownTable(
      [
        'ranking',
        ...LOCOMO_KS.map((k) => `R@${k}`),
        'multi-hop',
        'temporal',
        'open-dom.',
        'single-hop',
        ...INDIRECT_KS.map((k) => `ind H@${k}`),
        'ind MRR',
      ],
      r.rows.map((row) => [
        row.name,
        ...LOCOMO_KS.map((k) => fmt(row.locomo.recall[k])),
        ...['multi-hop', 'temporal', 'open-domain', 'single-hop'].map((c) => fmt(row.byCategory[c]?.recall[10])),
        ...INDIRECT_KS.map((k) => fmt(row.indirect.hit[k])),
        fmt(row.indirect.mrr),
      ]),
    ),
  );
  out.push('', 'Per conversation (R@5 / R@10 / R@20):', '');
  const groups = Object.keys(r.perConversation[0]?.byGroup ?? {});
  out.push(
    markdownTable(
      ['ranking', ...groups],
      r.perConversation.map((p) => [
        p.name,
        ...groups.map((g) => LOCOMO_KS.map((k) => fmt(p.byGroup[g]?.recall[k])).join(' / ')),
      ]),
    ),
  );
  out.push(
    '',
    'Leave-one-conversation-out: (trust, context weight) chosen on the other four by mean R@5/10/20, scored on the held-out one:',
    '',
  );
  out.push(
    markdownTable(
      ['held out', 'chosen on the others', 'held-out R@5 / R@10 / R@20', 'fixed default (0.5, 0.5)'],
      r.cv.map((c) => [
        `${c.group} (n=${c.held.n})`,
        c.chosen,
        LOCOMO_KS.map((k) => fmt(c.held.recall[k])).join(' / '),
        LOCOMO_KS.map((k) => fmt(c.fixed.recall[k])).join(' / '),
      ]),
    ),
  );
  out.push(
    '',
    `Pooled over the five held-out conversations: ${LOCOMO_KS.map((k) => `R@${k} ${fmt(r.cvPooled[k])}`).join(', ')}.`,
  );
  return out.join('\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
