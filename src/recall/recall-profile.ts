import type { RecallProfile } from '../model/api.js';
import { DEFAULT_BM25, type Bm25Params } from '../text/bm25.js';
import { referenceTokenize, stemmedTokenize, unicodeTokenize, type Tokenizer } from '../text/tokenizer.js';

/** The knobs that differ between the reference recall and Engram's default. */
export interface RecallProfileSpec {
  name: RecallProfile;
  /** Tokens for BM25 scoring and for the short-query rule. */
  tokenize: Tokenizer;
  /** Words sent to the store's full-text index (unstemmed: the index holds the words as written). */
  queryTerms: Tokenizer;
  bm25: Bm25Params;
  /**
   * Rows the corpus-level full-text channel adds to the dense pool, as a function of the dense pool
   * size; 0 turns the channel off (the reference has none).
   */
  lexicalPoolSize(densePool: number): number;
}

/** The reference recall, reproduced exactly: ASCII tokenizer, dense pool only. */
export const SEED_PROFILE: RecallProfileSpec = {
  name: 'seed',
  tokenize: referenceTokenize,
  queryTerms: referenceTokenize,
  bm25: DEFAULT_BM25,
  lexicalPoolSize: () => 0,
};

/**
 * Engram's default: the same fusion and weights, with two changes. A corpus-level lexical channel
 * as large as the dense pool, so a memory that matches the words but sits outside the dense pool
 * can still be ranked; and a Unicode-aware tokenizer (accents folded, Cyrillic, CJK bigrams) with
 * English Porter stemming for scoring, so inflected forms of a query word count as matches.
 */
export const ENGRAM_PROFILE: RecallProfileSpec = {
  name: 'engram',
  tokenize: stemmedTokenize,
  queryTerms: unicodeTokenize,
  bm25: DEFAULT_BM25,
  lexicalPoolSize: (densePool) => densePool,
};

export const RECALL_PROFILES: Record<RecallProfile, RecallProfileSpec> = {
  seed: SEED_PROFILE,
  engram: ENGRAM_PROFILE,
};
