import type { RankDocument } from '../text/term-document.js';

/** One memory of a recall's candidate pool, as the ranking sees it. */
export interface RecallCandidate {
  id: string;
  /** Cosine with the query vector (0 when the memory has no vector of the query's model). */
  cosine: number;
  /** Rank in the dense channel (1-based), when it came from there. */
  denseRank: number | undefined;
  /** Rank in the corpus lexical channel (1-based), when it came from there. */
  lexicalRank: number | undefined;
  /** Last update, when known (keys the token cache). */
  updatedAt: string | undefined;
  /** Its document of this version, when a channel brought it (the store's, as the profile's analyzer makes it). */
  document: RankDocument | undefined;
  /** Normalised pool BM25, raw BM25 and the fused score: written by the ranking. */
  bm25: number;
  bm25Raw: number;
  /** 1 when the query names the memory's speaker (spread fusion only). */
  speaker: number;
  fused: number;
}

/** Every candidate has the same shape from the start (keeps property access monomorphic). */
export function newCandidate(
  id: string,
  cosine: number,
  updatedAt: string | undefined,
  denseRank: number | undefined,
  lexicalRank: number | undefined,
  document?: RankDocument | undefined,
): RecallCandidate {
  return { id, cosine, denseRank, lexicalRank, updatedAt, document, bm25: 0, bm25Raw: 0, speaker: 0, fused: cosine };
}

/** Best first: fused score, then cosine, then id — a total order, so ties are deterministic. */
export function compareCandidates(
  a: Pick<RecallCandidate, 'id' | 'cosine' | 'fused'>,
  b: Pick<RecallCandidate, 'id' | 'cosine' | 'fused'>,
): number {
  return b.fused - a.fused || b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
