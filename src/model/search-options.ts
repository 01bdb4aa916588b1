import type { ChatMessage } from './chat-message.js';
import type { GivenVector } from './memory.js';
import type { MemoryType } from './memory-type.js';
import type { Scope } from './scope.js';
import type { BucketLimits } from './bucket-limits.js';
import type { BoostContext } from './boost-context.js';
import type { PathName } from './path-name.js';
import type { ValidityOptions } from './validity-options.js';

/** `fast`: no LLM; `fine`: one LLM planning call; `deep`: fine plus multi-stage retrieve → reflect → retrieve. */
export type SearchMode = 'fast' | 'fine' | 'deep';

/** Options of one search. Only `scope` is required. */
export interface SearchOptions extends ValidityOptions {
  /** Tenant and narrowing fields; every store call is restricted to it. */
  scope: Scope;
  /** @default 'fast' */
  mode?: SearchMode | undefined;
  /** Hits of the text types (working, long-term, user, outer, raw file). @default 10 */
  topK?: number | undefined;
  /** Per-type result sizes for tool / skill / preference memories. @default DEFAULT_BUCKET_LIMITS */
  bucketLimits?: Partial<Omit<BucketLimits, 'topK'>> | undefined;
  /** Memory types to search; paths whose types are all excluded do not run (web results need `OuterMemory`). @default every type */
  types?: MemoryType[] | undefined;
  /** Run only these paths (`internet` is governed by `internet`). @default DEFAULT_PATHS (all local paths but `keyword`) */
  paths?: PathName[] | undefined;
  /** Add web results (needs a configured web provider). Fine mode also needs the planner to ask for it unless `'always'`. @default false */
  internet?: boolean | 'always' | undefined;
  /** Reranker name from the registry. @default 'noop' (the core recall fusion is the ranking) */
  reranker?: string | undefined;
  /** Collections to search, each only if the caller may read it. @default [scope.collection] (or the whole scope) */
  collections?: string[] | undefined;
  /** Minimum final score. @default 0 */
  threshold?: number | undefined;
  /** Soft priority scope for the second dense pass, e.g. `{session: 's1'}`. @default none */
  priority?: Partial<Omit<Scope, 'tenant'>> | undefined;
  /** Boost matches on user / session / tags: score ×(1+w), clipped to [0, 1]. @default none */
  boost?: BoostContext | undefined;
  /** Fast mode: tokenise the query into graph keys and tags. @default false */
  fastGraph?: boolean | undefined;
  /** Run the full-text channel (weighted keyword terms) inside every scope path. @default fastGraph */
  fulltext?: boolean | undefined;
  /** Query decomposition into ≤ 3 sub-questions (one LLM call). @default false (true in deep mode) */
  decompose?: boolean | undefined;
  /** Let the LLM keep only the memories it would use (reasoner). @default false */
  reason?: boolean | undefined;
  /** Deep-search stages. @default 3 */
  deepStages?: number | undefined;
  /** Deep search rewrites the final memories into query-focused statements. @default false */
  deepRewrite?: boolean | undefined;
  /** Drop near-duplicates with cosine ≥ this (e.g. 0.95). @default off */
  nearDuplicateThreshold?: number | undefined;
  /** Diversify with MMR at this λ (1 = pure relevance). @default off */
  mmrLambda?: number | undefined;
  /** Dedupe hits with the same text. @default true */
  dedupe?: boolean | undefined;
  /**
   * Run the paths, rerankers and web search one after another instead of in parallel (benchmarks).
   * When unset, the store's own reads run one after another on a store that answers inline
   * (SQLite), where nothing could overlap, and everything else in parallel. @default unset
   */
  sequential?: boolean | undefined;
  /** Context and earlier turns for the fine planner. */
  context?: string | undefined;
  conversation?: ChatMessage[] | undefined;
  /**
   * A precomputed vector of `query` under the scope's embedding model: the dense channels use it
   * instead of embedding the query (texts the planner adds are still embedded). Checked like a
   * memory's vector. REST and the remote client carry it; MCP tools take text only. @default embedded from `query`
   */
  vector?: GivenVector | undefined;
  /**
   * Keep memories flagged on write as trying to instruct the model among the hits (each with
   * `explanation.flagged`). Off, they are withheld before post-processing, deep search and the
   * reasoner (no LLM sees them) and listed in `withheld`. @default false
   */
  includeFlagged?: boolean | undefined;
  signal?: AbortSignal | undefined;
}
