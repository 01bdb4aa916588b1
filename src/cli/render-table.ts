/** A column of a text table. */
export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Longest cell before it is cut with "…". @default 60 */
  max?: number;
  align?: 'left' | 'right';
}

function cut(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** Renders rows as an aligned plain-text table (no colours, safe to pipe). */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => cut(c.value(row), c.max ?? 60)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => (r[i] as string).length)));
  const pad = (text: string, i: number): string =>
    columns[i]?.align === 'right' ? text.padStart(widths[i] as number) : text.padEnd(widths[i] as number);
  const lines = [
    columns.map((c, i) => pad(c.header, i)).join('  '),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map((r) => r.map((cell, i) => pad(cell, i)).join('  ')),
  ];
  return lines.map((l) => l.trimEnd()).join('\n');
}
