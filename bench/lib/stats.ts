/**
 * The one stats module of the benches: every percentile in every RESULTS file is this one.
 *
 * Percentile = nearest rank: the smallest value with at least p% of the values at or below it,
 * i.e. the value at 1-based rank ⌈p/100 · n⌉ of the sorted list (p50 of an even-sized list is
 * the lower middle value; p in [0, 100], p0 is the minimum). NaN for an empty list.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Mean of a list (NaN when empty). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Formats a number with a fixed number of decimals, `–` for NaN / undefined. */
export function fmt(value: number | undefined, digits = 3): string {
  return value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);
}

/** Milliseconds with the decimals their size deserves: 2 below 10, 1 below 100, none above. */
export function fmtMs(ms: number): string {
  if (Number.isNaN(ms)) return '–';
  return ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}

/** Renders a markdown table. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
