import type { MemoryFlag } from './memory-flag.js';
import type { Memory } from './memory.js';

/** Which retrieval channel put a memory into the candidate set. */
export type Channel = 'dense' | 'lexical' | 'graph' | 'fulltext' | 'working' | 'internet' | (string & {});

/** Every number that shaped a hit's rank, so a caller can see why it was recalled. */
export interface HitExplanation {
  /** Channels that found the memory. */
  channels: Channel[];
  /** Cosine similarity of the memory's vector and the query vector (0 when it has none). */
  cosine: number;
  /** BM25 normalised to [0, 1] by the candidate set's maximum. */
  bm25: number;
  /** Raw BM25 before normalisation. */
  bm25Raw: number;
  /** Weight of the dense score in the fusion. */
  denseWeight: number;
  /** Weight of the lexical score in the fusion. */
  lexicalWeight: number;
  /** The fused score the hit was ranked by. */
  fused: number;
  /** Rank in the dense channel (1-based), if it came from there. */
  denseRank?: number | undefined;
  /** Rank in the corpus lexical channel (1-based), if it came from there. */
  lexicalRank?: number | undefined;
  /** Named extra scores (graph, rerank, boosts) added by later stages. */
  extra?: Record<string, number> | undefined;
  /**
   * Why the memory was flagged on write as trying to instruct the model: such a hit is in the
   * result's `withheld` list, or in `hits` when the call passed `includeFlagged`.
   */
  flagged?: MemoryFlag | undefined;
  /** How the memory stands at the recall's instant; present when superseded memories were asked for. */
  validity?: HitValidity | undefined;
}

/** Whether a recalled memory holds at the instant a recall is about (`asOf`, default now). */
export interface HitValidity {
  /** `superseded`: replaced by `supersededBy`; `ended`: stopped holding without a successor; `not-yet-valid`: begins after the instant. */
  state: 'valid' | 'superseded' | 'ended' | 'not-yet-valid';
  /** The instant (ISO-8601 UTC). */
  at: string;
  validFrom: string;
  validTo: string | null;
  supersededBy: string | null;
}

/** A recalled memory with its score and the explanation of that score. */
export interface Hit {
  memory: Memory;
  /** The fused score (what the threshold compares against). */
  score: number;
  explanation: HitExplanation;
}
