import type { EvalComparison } from './compare-evals.js';
import type { EvalSummary } from './eval-metrics.js';
import type { EvalReport } from './run-eval.js';

const f3 = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(3));
const signed = (x: number): string => (Number.isNaN(x) ? '–' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function metricRows(
  reports: readonly EvalReport[],
  pick: (r: EvalReport) => EvalSummary,
  withDelta: boolean,
): string[][] {
  const { ks } = reports[0] as EvalReport;
  const row = (label: string, value: (s: EvalSummary) => number): string[] => {
    const values = reports.map((r) => value(pick(r)));
    const cells = [label, ...values.map(f3)];
    if (withDelta) cells.push(signed((values[1] as number) - (values[0] as number)));
    return cells;
  };
  return [
    ...ks.map((k) => row(`recall@${k}`, (s) => s.recall[k] as number)),
    ...ks.map((k) => row(`hit@${k}`, (s) => s.hit[k] as number)),
    row('MRR', (s) => s.mrr),
  ];
}

function missLines(report: EvalReport, limit: number): string[] {
  const maxK = report.ks[report.ks.length - 1] as number;
  const missed = report.cases.filter((c) => c.misses.length > 0);
  if (missed.length === 0) return [`No misses in the top ${maxK}.`];
  const out = [`Misses of ${report.ranker} (expected not in the top ${maxK}): ${missed.length} case(s)`];
  for (const c of missed.slice(0, limit)) {
    out.push(`  [${c.id}] ${JSON.stringify(c.query)}`);
    for (const m of c.misses) {
      const where = m.rank === null ? 'not ranked' : `rank ${m.rank}`;
      out.push(`    expected ${m.expected} (${where})${m.text === null ? '' : `: ${m.text.slice(0, 90)}`}`);
      m.above.forEach((a, i) =>
        out.push(`      ${i + 1}. ${a.score.toFixed(3)} ${(a.key ?? a.id).slice(0, 24)}: ${a.text.slice(0, 80)}`),
      );
    }
  }
  if (missed.length > limit) out.push(`  … ${missed.length - limit} more (--misses N, or --json for all)`);
  return out;
}

/** The text report of one run, or of two runs side by side (with b − a). */
export function formatEvalReport(input: EvalReport | EvalComparison, options: { misses?: number } = {}): string {
  const reports = 'cases' in input ? [input] : [input.a, input.b];
  const first = reports[0] as EvalReport;
  const two = reports.length === 2;
  const header = ['', ...reports.map((r, i) => `${two ? `${'AB'[i]}: ` : ''}${r.ranker}`), ...(two ? ['B − A'] : [])];
  const out = [`${first.cases.length} cases, k = ${first.ks.join(', ')}`, ''];
  out.push(
    table(header, [
      ...metricRows(reports, (r) => r.overall, two),
      ['ms/query', ...reports.map((r) => r.msPerQuery.toFixed(1)), ...(two ? [''] : [])],
    ]),
  );
  const categories = Object.keys(first.byCategory);
  if (categories.length > 1) {
    const maxK = first.ks[first.ks.length - 1] as number;
    out.push('', `By category (recall@${maxK} / hit@${maxK} / MRR):`, '');
    const rows = categories.map((cat) => [
      `${cat} (n=${first.byCategory[cat]?.n ?? 0})`,
      ...reports.map((r) => {
        const s = r.byCategory[cat];
        return s === undefined ? '–' : `${f3(s.recall[maxK])} / ${f3(s.hit[maxK])} / ${f3(s.mrr)}`;
      }),
    ]);
    out.push(table(['category', ...reports.map((r, i) => (two ? ('AB'[i] ?? '') : r.ranker))], rows));
  }
  out.push('');
  if (!('cases' in input)) {
    out.push(
      `Hit in the top ${first.ks[first.ks.length - 1]} under A only: ${input.onlyA.length} case(s)${input.onlyA.length > 0 ? ` (${input.onlyA.slice(0, 10).join(', ')}${input.onlyA.length > 10 ? ', …' : ''})` : ''}`,
    );
    out.push(
      `Hit in the top ${first.ks[first.ks.length - 1]} under B only: ${input.onlyB.length} case(s)${input.onlyB.length > 0 ? ` (${input.onlyB.slice(0, 10).join(', ')}${input.onlyB.length > 10 ? ', …' : ''})` : ''}`,
    );
    out.push('');
  }
  for (const r of reports) out.push(...missLines(r, options.misses ?? 10), '');
  return out.join('\n').trimEnd();
}
