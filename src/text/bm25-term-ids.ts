import { countMatch, DEFAULT_BM25, queryColumns, scoreCounts, type Bm25Params, type Bm25Scores } from './bm25.js';
import type { TermDocument } from './term-document.js';

/**
 * {@link bm25Scores} over documents of term ids: the text's ids at weight 1 and the context's at
 * `contextWeight` (BM25F), with the query as ids of the same dictionary (-1 for a term it never
 * numbered, which then matches nothing, as its string would). The counts are those of the
 * documents' strings, added in the same order, so the scores are the same numbers.
 */
export function bm25TermIdScores(
  queryIds: readonly number[],
  documents: readonly TermDocument[],
  contextWeight: number,
  params: Bm25Params = DEFAULT_BM25,
): Bm25Scores {
  const n = documents.length;
  if (n === 0 || queryIds.length === 0) return { raw: new Float64Array(n), normalized: new Float64Array(n) };
  const { position, queryPositions } = queryColumns(queryIds);
  const q = position.size;
  // Most ids match no query id: a 1,024-bit filter on the low bits passes over them unlooked-up.
  const filter = new Uint32Array(32);
  for (const id of position.keys()) if (id >= 0) filter[(id >>> 5) & 31]! |= 1 << (id & 31);
  const tf = new Float64Array(n * q);
  const df = new Float64Array(q);
  const lengths = new Float64Array(n);
  let totalLength = 0;
  const add = (i: number, terms: Int32Array, from: number, to: number, weight: number): void => {
    for (let k = from; k < to; k++) {
      const id = terms[k] as number;
      if (((filter[(id >>> 5) & 31] as number) & (1 << (id & 31))) === 0) continue;
      const p = position.get(id);
      if (p !== undefined) countMatch(tf, df, i * q + p, p, weight);
    }
  };
  for (let i = 0; i < n; i++) {
    const { terms, textEnd, contextEnd } = documents[i] as TermDocument;
    add(i, terms, 0, textEnd, 1);
    let length = textEnd;
    if (contextEnd > textEnd) {
      add(i, terms, textEnd, contextEnd, contextWeight);
      length += contextWeight * (contextEnd - textEnd);
    }
    lengths[i] = length;
    totalLength += length;
  }
  return scoreCounts({ tf, df, lengths, totalLength }, queryPositions, n, params);
}
