import type { Memory } from '../../model/memory.js';
import type { MemoryType } from '../../model/memory-type.js';
import type { Scope } from '../../model/scope.js';
import type { MemoryStore, SearchGroup } from '../../store/memory-store.js';
import type { MemoryFilter } from '../../model/memory-filter.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import type { ParsedGoal } from '../../model/parsed-goal.js';
import type { TermDocument } from '../../text/term-document.js';

/** Names of the retrieval channels inside one scope. */
export type ChannelName = 'dense' | 'graph' | 'bm25' | 'fulltext' | 'working' | 'internet';

/** Everything a channel may use. Built once per path. */
export interface ChannelContext {
  store: MemoryStore;
  /** Embedding model of the query vectors; rows of other models are never compared. */
  model: string;
  /** Scope, types and statuses of the path. */
  filter: MemoryFilter;
  goal: ParsedGoal;
  /** Every query text (rephrased query, expansions, sub-questions), deduplicated. */
  queryTexts: string[];
  /** One vector per query text. */
  queryVectors: Float32Array[];
  /** Rows each channel may return. */
  limit: number;
  /** Soft priority: a second dense pass restricted to this narrower scope (e.g. the session). */
  priority?: Partial<Omit<Scope, 'tenant'>> | undefined;
  /** Tokenizer for words sent to the store full-text index (the profile's unstemmed `queryTerms`). */
  tokenize: Tokenizer;
  /** Terms for the full-text channel (weighted keyword extraction). */
  keywordTerms: string[];
  /** The ranking's analyzer: store hits may come with their documents (see `SearchExtras.analyzer`). @default none */
  analyzer?: string | undefined;
}

/** One channel's finding. */
export interface ChannelHit {
  id: string;
  /** The channel's own score (cosine for dense, share of tags for graph, normalised index score…). */
  score: number;
  /** The memory, when the channel already loaded it (saves a fetch). */
  memory?: Memory | undefined;
  /** Sub-scores, e.g. `dense.priority`. */
  extra?: Record<string, number> | undefined;
  /** The memory's last update, when the store reported it (lets ranking reuse cached tokens). */
  updatedAt?: string | undefined;
  /** The memory's type, when the store reported it (lets a shared pool be split by type without reading). */
  type?: MemoryType | undefined;
  /** The memory's document as the context's `analyzer` makes it, when the store brought it (ranking reads no text). */
  document?: TermDocument | undefined;
  /**
   * `maxCosine` of the memory's stored vector over the context's query vectors, when the store
   * gave it (see `LexicalCandidate.storedCosine`): the ranking then scores it no second time.
   */
  storedCosine?: number | undefined;
}

/** A retrieval channel: finds candidates inside one scope. */
export interface SearchChannel {
  readonly name: ChannelName;
  run(context: ChannelContext): Promise<ChannelHit[]>;
  /**
   * Optional: the channel for several paths of one scope at once (one store pass instead of one
   * per path). Result `i` equals `run` with `filter.types = groups[i].types` and
   * `limit = groups[i].limit`; `context.filter.types` and `context.limit` are ignored.
   */
  runGroups?(context: ChannelContext, groups: SearchGroup[]): Promise<ChannelHit[][]>;
  /**
   * Its scores are relative to the best hit of the list it returns (lexical channels): a list
   * split from a shared one is made relative to its own best again. @default false
   */
  readonly relativeScores?: boolean | undefined;
}
