import type { Hit } from './hit.js';
import type { GivenVector, Memory, MemoryInput, MemoryPatch } from './memory.js';
import type { MemoryType } from './memory-type.js';
import type { Scope } from './scope.js';
import type { ListOptions, MemoryFilter, Page, ScopeStats } from './memory-filter.js';
import type { SearchOptions } from './search-options.js';
import type { SearchResult } from './search-result.js';
import type { WarmReport } from './warm-report.js';
import type { SafetyPolicyPatch } from './safety-policy-patch.js';
import type { FormationApi } from './formation/formation-api.js';
import type { HistoryCaller } from './formation/history.js';
import type { ValidityOptions } from './validity-options.js';

/** Every call names its scope: there is no shared "current user". */
export interface Scoped {
  scope: Scope;
}

/** Fusion profiles. `seed` reproduces the reference recall exactly; `engram` is the default. */
export type RecallProfile = 'engram' | 'seed';

/** Options of {@link MemoryApi.recall}. */
export interface RecallOptions extends Scoped, ValidityOptions {
  /** Number of memories returned. @default 5 */
  limit?: number | undefined;
  /** Minimum fused score; hits below it are dropped. @default 0.1 */
  threshold?: number | undefined;
  /** @default 'engram' */
  profile?: RecallProfile | undefined;
  /** Restrict to these memory types. @default all types */
  types?: MemoryType[] | undefined;
  /** Lexical weight (trust in the words) for queries of more than 2 tokens. Profile `engram`: clamped to [0.05, 0.95], @default 0.5; profile `seed`: clamped to [0.05, 0.40], @default 0.15. Env ENGRAM_RECALL_LEX_WEIGHT. */
  lexicalWeight?: number | undefined;
  /** Lexical weight for queries of at most 2 tokens. Profile `engram`: [0.05, 0.95], @default 0.5; profile `seed`: [0.05, 0.40], @default 0.30. Env ENGRAM_RECALL_LEX_WEIGHT_SHORT. */
  lexicalWeightShort?: number | undefined;
  /**
   * A precomputed query vector under the scope's embedding model (skips query embedding; `query`
   * may then be empty). Checked like a memory's vector. @default embedded from `query`
   */
  vector?: GivenVector | undefined;
  /**
   * Return memories flagged on write as trying to instruct the model among the hits (each with
   * `explanation.flagged`). Off, they are withheld: listed in `withheld` with the reason, never
   * in `hits`, so never injected. @default false
   */
  includeFlagged?: boolean | undefined;
  /** Abort the recall. */
  signal?: AbortSignal | undefined;
}

/** Wall-clock milliseconds spent in each recall stage. */
export interface RecallTimings {
  embedMs: number;
  denseMs: number;
  lexicalMs: number;
  rankMs: number;
  totalMs: number;
}

export interface RecallResult {
  query: string;
  /** Hits at or above the threshold, best first. */
  hits: Hit[];
  /** Ranked hits that the threshold removed (best first), for explanation. */
  cut: Hit[];
  /**
   * Hits that ranked among the best but were withheld because their memory was flagged on write
   * as trying to instruct the model (best first); `explanation.flagged` says why. Empty with
   * `includeFlagged`. The hits are refilled from further down the ranking.
   */
  withheld: Hit[];
  /** Size of the dense candidate pool that was used. */
  poolSize: number;
  timings: RecallTimings;
}

/**
 * The filter a caller of the memory API gives (list, stats). World-time validity (`validAt`) is a
 * store filter the recall applies itself; it is not a list or stats field.
 */
export type RequestFilter = Omit<MemoryFilter, 'scope' | 'validAt'>;

export interface ListRequest extends Scoped, RequestFilter, ListOptions {}

/** Options of the writes (add, addMany, update, delete). */
export interface WriteOptions extends Scoped {
  /**
   * Who makes the change, recorded in the memory's history (an API key's id from the server, a
   * principal, never a secret). @default `{ kind: 'system', id: null }`
   */
  caller?: HistoryCaller | undefined;
  /**
   * This write's safety policy over the instance's and the tenant's. It can only tighten: an
   * action moves towards `reject`, the guard can be switched on but not off, the poisoning
   * threshold only goes down, national ids are added by preset name only; delete ignores it. @default none
   */
  safety?: SafetyPolicyPatch | undefined;
}

/**
 * The memory API, implemented in-process by {@link Engram} and over HTTP by the remote client.
 * Both run the same conformance tests.
 */
export interface MemoryApi extends FormationApi {
  add(input: MemoryInput, options: WriteOptions): Promise<Memory>;
  /** Adds all or none. */
  addMany(inputs: MemoryInput[], options: WriteOptions): Promise<Memory[]>;
  get(id: string, options: Scoped): Promise<Memory | null>;
  /** Throws EngramError('NOT_FOUND') when the id is not in the tenant. */
  update(id: string, patch: MemoryPatch, options: WriteOptions): Promise<Memory>;
  /** Returns false when nothing was deleted. */
  delete(id: string, options: WriteOptions): Promise<boolean>;
  list(request: ListRequest): Promise<Page<Memory>>;
  stats(request: Scoped & RequestFilter): Promise<ScopeStats>;
  recall(query: string, options: RecallOptions): Promise<RecallResult>;
  /**
   * The multi-path searcher: plan (fast | fine | deep), paths over memory types, channels, a named
   * reranker, post-processing. Local and remote answer with the same hits, order and scores.
   */
  search(query: string, options: SearchOptions): Promise<SearchResult>;
  /** Optional. Loads the caches of recently served scopes ahead of their first request (a server calls it once started). */
  warm?(): Promise<WarmReport>;
  close(): Promise<void>;
}
