import type { MemoryFlag } from './memory-flag.js';
import type { HitValidity } from './hit.js';
import type { Memory } from './memory.js';
import type { ParsedGoal, PlanInfo } from './parsed-goal.js';

/** Why a hit is where it is: every path, channel and score that shaped its rank. */
export interface SearchExplanation {
  /** Paths that found it, e.g. `long-term`, `keyword`. */
  paths: string[];
  /** Score per channel that found it (`dense`, `graph`, `bm25`, `fulltext`, `working`, `internet`, `dense.priority`). */
  channels: Record<string, number>;
  /** Max cosine with the query vectors. */
  cosine: number;
  /** Pool-normalised BM25 of the fusion. */
  bm25: number;
  /** Lexical weight of the fusion. */
  lexicalWeight: number;
  /** The core recall fusion score. */
  fused: number;
  /** Reranker name and its score (absent for `noop`). */
  rerank?: { name: string; score: number } | undefined;
  /** Boost factor applied (1 = none). */
  boost?: number | undefined;
  /** Deep-search stage (0 = first retrieval) that found it. */
  stage?: number | undefined;
  /** Why the memory was flagged on write as trying to instruct the model (see `SearchResult.withheld`). */
  flagged?: MemoryFlag | undefined;
  /** How the memory stands at the search's instant; present when superseded memories were asked for. */
  validity?: HitValidity | undefined;
}

/** One search result. */
export interface SearchHit {
  memory: Memory;
  /** The final score, written back after post-processing. */
  relevance: number;
  /** Collection the hit came from (null when the search did not name collections). */
  collection: string | null;
  explanation: SearchExplanation;
  /** Query-focused rewrite from deep search, when asked for. */
  rewritten?: string | undefined;
}

/** Milliseconds per stage. */
export interface SearchTimings {
  planMs: number;
  embedMs: number;
  pathsMs: number;
  /** Per path (summed over collections). */
  paths: Record<string, number>;
  /** Per channel (summed over paths and collections). */
  channels: Record<string, number>;
  postMs: number;
  reasonMs: number;
  deepMs: number;
  totalMs: number;
}

/** The plan a search followed. */
export interface SearchPlan {
  mode: 'fast' | 'fine' | 'deep';
  goal: ParsedGoal;
  info: PlanInfo;
  /** Texts embedded (one batch, deduplicated). */
  queryTexts: string[];
  subQuestions: string[];
  /** Weighted keyword terms of the full-text channel (empty when no path runs it). */
  keywordTerms: string[];
  paths: string[];
  reranker: string;
  /** Deep-search stages: phrases searched and whether the model could answer. */
  stages?: Array<{ stage: number; canAnswer: boolean; phrases: string[]; error?: string | undefined }> | undefined;
}

/** What a search returns. */
export interface SearchResult {
  query: string;
  hits: SearchHit[];
  plan: SearchPlan;
  timings: SearchTimings;
  /** Collections searched and the requested ones the caller may not read (never touched). */
  collections: { searched: Array<string | null>; denied: string[] };
  /** Failures that were degraded (path, channel, internet, reasoner, stage) with their messages. */
  degraded: Record<string, string>;
  /**
   * The best hits withheld because their memory was flagged on write as trying to instruct the
   * model (at most `topK`, best first), with `explanation.flagged`. Empty with `includeFlagged`.
   */
  withheld: SearchHit[];
}
