import type { Memory } from '../../model/memory.js';
import type { SearchExplanation } from '../../model/search-result.js';

/** A candidate moving through a search, with every score that shaped it (its hit's explanation). */
export interface SearchCandidate extends Omit<SearchExplanation, 'paths'> {
  memory: Memory;
  collection: string | null;
  /** Paths that found it (sorted into the explanation at the end). */
  paths: Set<string>;
  /** Current score (fused → reranked → boosted). */
  score: number;
}
