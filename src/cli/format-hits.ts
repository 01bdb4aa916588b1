import type { RecallResult } from '../model/api.js';
import type { Hit } from '../model/hit.js';
import { renderTable, type Column } from './render-table.js';

const num = (n: number): string => n.toFixed(3);
const day = (iso: string | null): string => (iso ? iso.slice(0, 16).replace('T', ' ') : '');

/** The recall result as a readable table; `explain` adds every score that shaped the rank. */
export function formatHits(result: RecallResult, explain: boolean): string {
  if (result.hits.length === 0) {
    const best = result.cut[0];
    return best
      ? `No memory reached the threshold (best score ${num(best.score)}).`
      : 'No memories found in this scope.';
  }
  const columns: Column<Hit & { rank: number }>[] = [
    { header: '#', value: (h) => String(h.rank), align: 'right' },
    { header: 'score', value: (h) => num(h.score), align: 'right' },
  ];
  if (explain) {
    columns.push(
      { header: 'cosine', value: (h) => num(h.explanation.cosine), align: 'right' },
      { header: 'bm25', value: (h) => num(h.explanation.bm25), align: 'right' },
      { header: 'w_lex', value: (h) => h.explanation.lexicalWeight.toFixed(2), align: 'right' },
      { header: 'channels', value: (h) => h.explanation.channels.join('+') },
      { header: 'id', value: (h) => h.memory.id, max: 12 },
    );
  }
  columns.push(
    { header: 'type', value: (h) => h.memory.type.replace(/Memory$/, '') },
    { header: 'stated', value: (h) => day(h.memory.statedAt) },
  );
  if (result.hits.some((h) => h.explanation.validity))
    columns.push({ header: 'valid', value: (h) => h.explanation.validity?.state ?? '' });
  columns.push({ header: 'text', value: (h) => h.memory.text, max: explain ? 60 : 80 });
  const table = renderTable(
    result.hits.map((h, i) => ({ ...h, rank: i + 1 })),
    columns,
  );
  if (!explain) return table;
  const t = result.timings;
  return (
    `${table}\n\npool ${result.poolSize} candidates; ${result.cut.length} ranked hits below the threshold\n` +
    `timings: embed ${t.embedMs.toFixed(1)} ms, dense ${t.denseMs.toFixed(1)} ms, lexical ${t.lexicalMs.toFixed(1)} ms, ` +
    `rank ${t.rankMs.toFixed(1)} ms, total ${t.totalMs.toFixed(1)} ms`
  );
}
