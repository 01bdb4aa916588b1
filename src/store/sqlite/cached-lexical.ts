import { topScored } from '../../vector/top-scored.js';
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
  /** Each candidate also carries its document (the index's analyzer's, see `LexicalIndex.documentOf`). @default false */
  documents?: boolean | undefined;
}

/** What {@link rankCachedLexicalGroups} ranks: one list per limit. */
export interface CachedLexicalGroupsInput {
  index: LexicalIndex;
  /** At most 31 groups. */
  limits: readonly number[];
  /** The groups that may return a live document, one bit each (bit `i` for `limits[i]`). */
  accept: (doc: number) => number;
  terms: readonly TermPostings[];
  /** Working arrays of `index.docCount` zeros, handed back zeroed (saves allocating them per call). */
  scratch?: LexicalScratch | undefined;
  /** As {@link CachedLexicalInput.documents}. @default false */
  documents?: boolean | undefined;
}

/** Ranked candidates and the `memories.pk` of each, in the same order (the vector partition finds rows by pk). */
export interface RankedLexical {
  candidates: LexicalCandidate[];
  pks: number[];
}

/** Per-document working arrays of a ranking pass. */
export interface LexicalScratch {
  scores: Float64Array;
  masks: Uint32Array;
}

/** Zeroed working arrays for a ranking pass over `index`. */
export function lexicalScratch(index: LexicalIndex): LexicalScratch {
  return { scores: new Float64Array(index.docCount), masks: new Uint32Array(index.docCount) };
}

const K1 = 1.2;
const B = 0.75;
/** Groups ranked in one pass (one bit each beside the "seen" bit of a 32-bit mask). */
export const MAX_GROUPS_PER_PASS = 31;
const SEEN = 2 ** 31;

/**
 * BM25 with FTS5's own formula (k1 1.2, b 0.75, idf ln((N − df + 0.5) / (df + 0.5)) floored at
 * 1e-6, term frequency and document length) over one partition's in-memory index, with the
 * scope's statistics: N, df and the mean length are the partition's, so one tenant's memories
 * never shift another's scores. The filter is tested once per matched row. Best first, newest
 * row first on ties.
 */
export function rankCachedLexical(input: CachedLexicalInput): RankedLexical {
  const { index, filter } = input;
  const n = index.docCount;
  if (index.size === 0 || input.limit <= 0) return { candidates: [], pks: [] };
  const accepts = filter === null ? null : index.accepts(filter);
  // One query alone (the core recall's): a byte of state per row, no group masks.
  const scores = new Float64Array(n);
  // 0 = not seen yet, 1 = accepted by the filter, 2 = rejected.
  const state = new Uint8Array(n);
  const touched: number[] = [];
  const mean = index.meanLength;
  for (const term of input.terms) {
    const idf = termIdf(index.size, term.df ?? term.docs.length);
    const { docs, tfs } = term;
    for (let j = 0; j < docs.length; j++) {
      const doc = docs[j] as number;
      let seen = state[doc] as number;
      if (seen === 0) {
        const id = index.idOf(doc);
        seen = id !== null && (accepts === null || accepts(doc)) ? 1 : 2;
        state[doc] = seen;
        if (seen === 1) touched.push(doc);
      }
      if (seen !== 1) continue;
      scores[doc] = (scores[doc] as number) + termScore(idf, tfs[j] as number, index.lengthOf(doc), mean);
    }
  }
  return rankedOf(index, topScored(touched, scores, input.limit), scores, input.documents === true);
}

/** FTS5's idf: ln((N − df + 0.5) / (df + 0.5)), floored at 1e-6. */
function termIdf(size: number, df: number): number {
  const rawIdf = Math.log((size - df + 0.5) / (df + 0.5));
  return rawIdf > 0 ? rawIdf : 1e-6;
}

/** One term's BM25 contribution to a row of `length` tokens. */
function termScore(idf: number, tf: number, length: number, mean: number): number {
  return (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / mean));
}

/**
 * {@link rankCachedLexical} for several groups over the same postings in one pass: a row's score
 * does not depend on the filter, so each row is scored once (and `accept` asked once) and each
 * group keeps its own best. Result `i` equals `rankCachedLexical` with the filter of bit `i`.
 */
export function rankCachedLexicalGroups(input: CachedLexicalGroupsInput): RankedLexical[] {
  const { index, limits, accept } = input;
  if (limits.length > MAX_GROUPS_PER_PASS) throw new RangeError(`at most ${MAX_GROUPS_PER_PASS} groups per pass`);
  if (index.size === 0) return limits.map(() => ({ candidates: [], pks: [] }));
  const { scores, masks } = input.scratch ?? lexicalScratch(index);
  // masks: 0 = not seen yet; else SEEN plus one bit per group whose filter accepts the row.
  const touched: number[] = [];
  const rejected: number[] = [];
  const mean = index.meanLength;
  for (const term of input.terms) {
    const idf = termIdf(index.size, term.df ?? term.docs.length);
    const { docs, tfs } = term;
    for (let j = 0; j < docs.length; j++) {
      const doc = docs[j] as number;
      let mask = masks[doc] as number;
      if (mask === 0) {
        mask = index.idOf(doc) === null ? SEEN : SEEN + accept(doc);
        masks[doc] = mask;
        if (mask !== SEEN) touched.push(doc);
        else if (input.scratch) rejected.push(doc);
      }
      if (mask === SEEN) continue;
      scores[doc] = (scores[doc] as number) + termScore(idf, tfs[j] as number, index.lengthOf(doc), mean);
    }
  }
  // Each group's rows in one pass (groups of one search rarely overlap, so this is about one copy).
  const members = limits.map((): number[] => []);
  for (const doc of touched) {
    const mask = masks[doc] as number;
    for (let g = 0; g < limits.length; g++) if ((mask & (2 ** g)) !== 0) (members[g] as number[]).push(doc);
  }
  const out = limits.map((limit, g) =>
    limit <= 0
      ? { candidates: [], pks: [] }
      : rankedOf(index, topScored(members[g] as number[], scores, limit), scores, input.documents === true),
  );
  if (input.scratch) {
    for (const doc of touched) {
      scores[doc] = 0;
      masks[doc] = 0;
    }
    for (const doc of rejected) masks[doc] = 0;
  }
  return out;
}

/**
 * The ranked documents as candidates, each with the last update and type its row's meta holds
 * (and its document, when asked), and their pks.
 */
function rankedOf(
  index: LexicalIndex,
  docs: readonly number[],
  scores: Float64Array,
  withDocument: boolean,
): RankedLexical {
  const pks: number[] = [];
  const candidates = docs.map((doc): LexicalCandidate => {
    const { updatedAt, type, pk } = index.metaOf(doc);
    pks.push(pk);
    const candidate: LexicalCandidate = {
      id: index.idOf(doc) as string,
      score: scores[doc] as number,
      updatedAt,
      type,
    };
    const document = withDocument ? index.documentOf(doc) : null;
    if (document !== null) candidate.document = document;
    return candidate;
  });
  return { candidates, pks };
}
