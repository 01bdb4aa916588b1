import { topK } from '../../vector/top-k.js';
import type { LexicalCandidate } from '../memory-store.js';
import type { LexicalIndex, Postings } from './lexical-index.js';
import type { SlotFilter } from './vector-partition.js';

/** One query term's matches among the index's documents. */
export interface TermPostings extends Postings {
  /**
   * Document frequency for the idf when `docs` is not the term's complete list (a bounded read);
   * by default the number of postings.
   */
  df?: number | undefined;
}

/** What {@link rankCachedLexical} ranks. */
export interface CachedLexicalInput {
  index: LexicalIndex;
  /** Which rows may be returned (null: all). */
  filter: SlotFilter | null;
  terms: readonly TermPostings[];
  limit: number;
}

const K1 = 1.2;
const B = 0.75;

/**
 * BM25 with FTS5's own formula (k1 1.2, b 0.75, idf ln((N − df + 0.5) / (df + 0.5)) floored at
 * 1e-6, term frequency and document length) over one partition's in-memory index, with the
 * scope's statistics: N, df and the mean length are the partition's, so one tenant's memories
 * never shift another's scores. The filter is tested once per matched row. Best first, newest
 * row first on ties.
 */
export function rankCachedLexical(input: CachedLexicalInput): LexicalCandidate[] {
  const { index, filter } = input;
  const n = index.docCount;
  if (index.size === 0 || input.limit <= 0) return [];
  const scores = new Float64Array(n);
  // 0 = not seen yet, 1 = accepted by the filter, 2 = rejected.
  const state = new Uint8Array(n);
  const touched: number[] = [];
  const mean = index.meanLength;
  for (const term of input.terms) {
    const df = term.df ?? term.docs.length;
    const rawIdf = Math.log((index.size - df + 0.5) / (df + 0.5));
    const idf = rawIdf > 0 ? rawIdf : 1e-6;
    const { docs, tfs } = term;
    for (let j = 0; j < docs.length; j++) {
      const doc = docs[j] as number;
      let seen = state[doc] as number;
      if (seen === 0) {
        const id = index.idOf(doc);
        seen = id !== null && (filter === null || filter.test(id, index.metaOf(doc))) ? 1 : 2;
        state[doc] = seen;
        if (seen === 1) touched.push(doc);
      }
      if (seen !== 1) continue;
      const tf = tfs[j] as number;
      scores[doc] =
        (scores[doc] as number) + (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * index.lengthOf(doc)) / mean));
    }
  }
  const best = topK(touched, input.limit, (a, b) => (scores[b] as number) - (scores[a] as number) || b - a);
  return best.map((doc) => ({ id: index.idOf(doc) as string, score: scores[doc] as number }));
}
