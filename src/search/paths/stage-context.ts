import type { BoostContext } from '../../model/boost-context.js';
import type { BucketLimits } from '../../model/bucket-limits.js';
import type { ParsedGoal } from '../../model/parsed-goal.js';
import type { Scope } from '../../model/scope.js';
import type { LexicalWeights } from '../../recall/lexical-weights.js';
import type { PoolDocument } from '../../text/pool-document.js';
import type { RecallProfileSpec } from '../../recall/recall-profile.js';
import type { TokenCacheView } from '../../recall/token-cache.js';
import type { MemoryStore } from '../../store/memory-store.js';
import type { Reranker } from '../rank/reranker.js';
import type { WebPath } from './internet-path.js';
import type { PathSpec } from './search-paths.js';

/** What every retrieval stage of one search shares, fixed once the search is planned. */
export interface StageContext {
  store: MemoryStore;
  /** Embedding model of the query vectors (the dense channel reads only vectors of it). */
  model: string;
  /** The search's scope; each collection narrows it. */
  scope: Scope;
  /** Only memories valid at this instant (`MemoryFilter.validAt`); undefined with `includeSuperseded`. */
  validAt?: string | undefined;
  /** Collections the caller may read (`null`: the search named none). */
  collections: ReadonlyArray<string | null>;
  paths: readonly PathSpec[];
  /** The internet path when this search adds web results (run once, with the first collection). */
  web: WebPath | null;
  topK: number;
  limits: BucketLimits;
  profile: RecallProfileSpec;
  /** Candidates' pool documents reused across searches (the profile's, the search's tenant; the core recall's view). */
  documents?: TokenCacheView<PoolDocument> | undefined;
  weights: LexicalWeights;
  reranker: Reranker;
  fulltext: boolean;
  priority?: Partial<Omit<Scope, 'tenant'>> | undefined;
  boost?: BoostContext | undefined;
  /** Run the paths, rerankers and web search one after another instead of in parallel. */
  sequential: boolean;
  /** Run the store's reads one after another (the store answers inline, or `sequential`). */
  storeInOrder: boolean;
  signal?: AbortSignal | undefined;
  now: () => number;
  /** Each path's latency within a stage (from the stage's start to its candidates), summed over stages. */
  pathTimings: Record<string, number>;
  /** Milliseconds per channel, summed over collections and stages (a channel answering every path at once counts once). */
  channelTimings: Record<string, number>;
  /** Failures degraded so far (path, channel, provider); written by every stage. */
  degraded: Record<string, string>;
}

/** The query of one stage: the plan's for the first, one deep-search phrase for each later one. */
export interface StageQuery {
  goal: ParsedGoal;
  queryTexts: string[];
  queryVectors: Float32Array[];
  keywordTerms: string[];
}
