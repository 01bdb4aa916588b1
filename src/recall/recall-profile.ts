import type { RecallProfile } from '../model/api.js';
import { DEFAULT_BM25, type Bm25Params } from '../text/bm25.js';
import { CONTEXT_ANALYZER, type DocumentAnalyzer } from '../text/document-analyzer.js';
import { stripPossessives } from '../text/strip-possessives.js';
import { referenceTokenize, stemmedTokenize, unicodeTokenize, type Tokenizer } from '../text/tokenizer.js';
import { resolveLexicalWeights, type LexicalWeights, type LexicalWeightSources } from './lexical-weights.js';

/** The knobs that differ between the reference recall and Engram's default. */
export interface RecallProfileSpec {
  name: RecallProfile;
  /** Tokens of a memory for BM25 scoring. */
  tokenize: Tokenizer;
  /** Tokens of the query for BM25 scoring and for the short-query rule. */
  queryTokenize: Tokenizer;
  /** Words sent to the store's full-text index (unstemmed: the index holds the words as written). */
  queryTerms: Tokenizer;
  bm25: Bm25Params;
  /**
   * Rows the corpus-level full-text channel adds to the dense pool, as a function of the dense pool
   * size; 0 turns the channel off (the reference has none).
   */
  lexicalPoolSize(densePool: number): number;
  /**
   * How the pool is ranked: `linear` is the reference fusion (cosine and pool BM25 of the text);
   * `spread` is {@link fuseSpread} over the text, the memory's context and its speakers.
   */
  fusion: 'linear' | 'spread';
  /** Weight of a memory's context (background, day stated) against its text in BM25; `spread` only. */
  contextWeight: number;
  /**
   * The analyzer whose documents are this profile's pool documents (`poolDocumentOf`), so a
   * store that keeps them saves the recall its tokenising. None: every document is made here.
   */
  analyzer?: DocumentAnalyzer | undefined;
  /** This profile's lexical weights from an option, the config, the environment and a calibration. */
  resolveWeights(sources: LexicalWeightSources): LexicalWeights;
}

/**
 * The reference recall, reproduced exactly: ASCII tokenizer, dense pool only, the reference fusion
 * and weights (a calibration for the embedder is ignored).
 */
export const SEED_PROFILE: RecallProfileSpec = {
  name: 'seed',
  tokenize: referenceTokenize,
  queryTokenize: referenceTokenize,
  queryTerms: referenceTokenize,
  bm25: DEFAULT_BM25,
  lexicalPoolSize: () => 0,
  fusion: 'linear',
  contextWeight: 0,
  resolveWeights: (sources) => resolveLexicalWeights(sources),
};

/**
 * Engram's lexical weight when none is set and no calibration for the embedder is given: the words
 * and the cosine are trusted equally once each is scaled by its spread over the pool. Measured
 * with USE-lite on LoCoMo (the best trust there, and what leave-one-conversation-out tuning
 * picks); for another embedder, `engram calibrate` measures its own (a weak one wants more).
 */
export const ENGRAM_LEXICAL_WEIGHTS: LexicalWeights = { base: 0.5, short: 0.5 };

/**
 * Engram's default. Over the reference: a corpus-level lexical channel as large as the dense pool,
 * so a memory that matches the words but sits outside the dense pool can still be ranked; a
 * Unicode-aware tokenizer (accents folded, Cyrillic, CJK bigrams) with English Porter stemming for
 * scoring; and the spread fusion, where a memory also matches through its context (what it answers,
 * the day it was said) at half the weight of its own words, and through who said it. Queries lose
 * their possessive endings ("Luis's" matches as "Luis").
 */
export const ENGRAM_PROFILE: RecallProfileSpec = {
  name: 'engram',
  tokenize: stemmedTokenize,
  queryTokenize: (query) => stemmedTokenize(stripPossessives(query)),
  queryTerms: (query) => unicodeTokenize(stripPossessives(query)),
  bm25: DEFAULT_BM25,
  lexicalPoolSize: (densePool) => densePool,
  fusion: 'spread',
  contextWeight: 0.5,
  analyzer: CONTEXT_ANALYZER,
  resolveWeights: (sources) =>
    resolveLexicalWeights(sources, { defaults: sources.calibrated ?? ENGRAM_LEXICAL_WEIGHTS, max: 0.95 }),
};

export const RECALL_PROFILES: Record<RecallProfile, RecallProfileSpec> = {
  seed: SEED_PROFILE,
  engram: ENGRAM_PROFILE,
};
