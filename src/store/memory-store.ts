import type { FormationStore } from '../model/formation/formation-store.js';
import type { HistoryCaller, HistoryCause, HistoryEvent } from '../model/formation/history.js';
import type { EmbeddingInfo, Memory, MemoryPatch } from '../model/memory.js';
import type { ListOptions, MemoryFilter, Page, ScopeStats } from '../model/memory-filter.js';
import type { MemoryContext } from '../model/memory-context.js';
import type { TermDocument } from '../text/term-document.js';
import type { MemoryType } from '../model/memory-type.js';
import type { WarmReport } from '../model/warm-report.js';

/** The validity fields a record may leave out (see {@link MemoryRecord}). */
type ValidityField = 'validFrom' | 'validTo' | 'supersededBy' | 'version';

/**
 * A memory ready to be written: validated, normalised, with its vector (or null when the
 * memory is stored without one). Produced by the facade, never by callers directly. Its
 * validity may be left out: `validFrom` is then `statedAt ?? createdAt`, `validTo` and
 * `supersededBy` null, `version` 1.
 */
export interface MemoryRecord extends Omit<Memory, 'usage' | ValidityField>, Partial<Pick<Memory, ValidityField>> {
  vector: Float32Array | null;
}

/**
 * Why and by whom a write is made: recorded in the history event the store appends in the write's
 * own transaction (one per changed memory).
 */
export interface WriteContext {
  /** @default `{ type: 'system', detail: 'store.<operation>' }` */
  cause?: HistoryCause | undefined;
  /** @default `{ kind: 'system', id: null }` */
  caller?: HistoryCaller | undefined;
  /** System time of the change. @default the record's `updatedAt` (insert), the patch's (update), now (delete) */
  at?: string | undefined;
  /** Episode ids behind the change. @default [] */
  sourceTurnIds?: string[] | undefined;
  /**
   * Insert only: what the insert is, for the memories that have no events in `history`.
   * @default 'created'
   */
  kind?: 'created' | 'restored' | undefined;
  /**
   * Insert only: earlier events restored verbatim in the same transaction (an import of an
   * export), each memory's oldest first; they may name memories that no longer exist. A record
   * with events here gets no new one: its history is what it was.
   */
  history?: HistoryEvent[] | undefined;
}

export type { MemoryContext };

/** The part of a memory that lexical ranking reads. */
export interface MemoryText {
  id: string;
  text: string;
  updatedAt: string;
  /**
   * The memory's type, when the store has it at hand (every built-in store does). The searcher
   * splits one shared candidate pool into its paths by it; without it, each path searches alone.
   */
  type?: MemoryType | undefined;
  /** Present when asked for (`getTexts(…, { context: true })`) and the store can answer it. */
  context?: MemoryContext | undefined;
  /**
   * The row's document as the analyzer named by `getTexts(…, { analyzer })` makes it from this
   * text and context, as term ids, present when the store keeps that analyzer's documents
   * (SQLite: its `analyzer` option, for the rows its in-memory index holds).
   */
  document?: TermDocument | undefined;
}

/** What {@link MemoryStore.getTexts} is asked to return with each text besides its id, text, last update and type. */
export interface TextOptions {
  /** Each row's {@link MemoryContext}, where the store can answer it. @default false */
  context?: boolean | undefined;
  /** Name of a `DocumentAnalyzer` whose documents the caller can use as they are. @default none */
  analyzer?: string | undefined;
}

/** A dense candidate: the memory id and its cosine with the query vector. */
export interface DenseCandidate {
  id: string;
  cosine: number;
  /** The memory's last update, when the backend has it at hand (lets callers reuse per-memory caches). */
  updatedAt?: string | undefined;
  /** The memory's type, when the backend has it at hand (lets the searcher split a shared pool without reading). */
  type?: MemoryType | undefined;
  /** The whole memory, as {@link MemoryStore.get} returns it, when the query asked `withRows` and the backend answered it. */
  memory?: Memory | undefined;
  /** The row's document as the query's `analyzer` makes it, when asked and the store keeps that analyzer's documents. */
  document?: TermDocument | undefined;
}

/** A corpus-level lexical candidate: the memory id and the backend's own relevance (higher is better). */
export interface LexicalCandidate {
  id: string;
  score: number;
  /**
   * Cosine with the query's `scoreWith` vector, exactly as {@link MemoryStore.denseSearch} scores
   * this row, when asked and answered (absent: the caller scores it with `denseSearch`).
   */
  cosine?: number | undefined;
  /**
   * The best cosine of the row's stored vector with the query's `storedCosinesWith` vectors,
   * exactly as {@link MemoryStore.storedCosines} gives it, when asked and answered (absent: the
   * caller asks `storedCosines`).
   */
  storedCosine?: number | undefined;
  /** The memory's last update, given with `cosine` or `memory`, or when the backend has it at hand. */
  updatedAt?: string | undefined;
  /** The memory's type, when the backend has it at hand. */
  type?: MemoryType | undefined;
  /** The whole memory, as {@link MemoryStore.get} returns it, when the query asked `withRows` and the backend answered it. */
  memory?: Memory | undefined;
  /** The row's document as the query's `analyzer` makes it, when asked and the store keeps that analyzer's documents. */
  document?: TermDocument | undefined;
}

/**
 * What a search may also return with each candidate, so a caller needs no further reads (a
 * recall: the rows it ranks and shows). Hints: a backend whose reads are network round trips
 * answers them inside the search's own query; one whose reads are cheap (SQLite, in-process) may
 * leave the fields out, and the caller then reads what it needs.
 */
export interface SearchExtras {
  /** Each candidate's whole row (`memory`). @default false */
  withRows?: boolean | undefined;
  /**
   * Name of a `DocumentAnalyzer` whose documents the caller uses as they are: each candidate
   * may carry its `document`, as `getTexts(…, { analyzer })` would return it, where the store
   * keeps that analyzer's documents (SQLite: the rows its in-memory lexical index holds).
   * @default none
   */
  analyzer?: string | undefined;
}

export interface DenseQuery extends SearchExtras {
  filter: MemoryFilter;
  vector: Float32Array;
  /** Embedding model the query vector came from; rows of other models are never compared. */
  model: string;
  limit: number;
}

export interface LexicalQuery extends SearchExtras {
  filter: MemoryFilter;
  /** Plain terms (already tokenised by Engram). The store escapes them for its own syntax. */
  terms: string[];
  limit: number;
  /**
   * Only rows holding a vector of this embedding model and dimension (the rows a recall can
   * score). Lets a store with an in-memory vector cache answer from it. @default every row
   */
  space?: EmbeddingInfo | undefined;
  /**
   * A query vector of `space` (required with it): each candidate may also carry its `cosine`
   * with it and its `updatedAt` (a hint, see {@link SearchExtras}). @default none
   */
  scoreWith?: Float32Array | undefined;
  /**
   * Query vectors of `space` (required with them): each candidate may also carry its
   * `storedCosine` with them and its `updatedAt` (a hint, see {@link SearchExtras}). @default none
   */
  storedCosinesWith?: Float32Array[] | undefined;
}

/** What {@link MemoryStore.newestIds} may also give with each id (hints, see {@link SearchExtras}). */
export interface NewestIdsOptions extends Pick<SearchExtras, 'analyzer'> {
  /** Query vectors: each row may carry its `storedCosine` with them. @default none */
  storedCosinesWith?: Float32Array[] | undefined;
  /**
   * The embedding space of `storedCosinesWith`: a backend with a vector cache may load the
   * scope's vectors of it to answer them, as a dense search of the scope would (and, for
   * `analyzer`, its lexical index, as a lexical search would, to give the documents), so a search
   * that runs neither (working memory alone) scores and analyses no row twice. It filters nothing.
   * @default none
   */
  space?: EmbeddingInfo | undefined;
}

/** One row of {@link MemoryStore.newestIds}. */
export interface NewestId {
  id: string;
  updatedAt: string;
  document?: TermDocument | undefined;
  /** As {@link LexicalCandidate.storedCosine}. */
  storedCosine?: number | undefined;
}

/** One group of a grouped search: rows of these types (in place of `filter.types`), at most `limit`. */
export interface SearchGroup {
  types: MemoryType[];
  limit: number;
}

/** Dense searches of one scope and query vector that differ only in their types and limits. */
export interface DenseGroupQuery extends Omit<DenseQuery, 'limit'> {
  groups: SearchGroup[];
}

/** Lexical searches of one scope and set of terms that differ only in their types and limits. */
export interface LexicalGroupQuery extends Omit<LexicalQuery, 'limit'> {
  groups: SearchGroup[];
}

/** A patch as the store receives it: the facade always sets `updatedAt`. */
export type StorePatch = MemoryPatch & { updatedAt: string; statedAt?: string | null };

/** A new vector with its embedding info, for {@link MemoryStore.update}; null clears the vector. */
export type StoreVector = { vector: Float32Array; embedding: EmbeddingInfo } | null;

/** Exact usage of one memory, for {@link MemoryStore.setUsage}. */
export interface UsageEntry {
  id: string;
  count: number;
  /** ISO-8601 UTC, or null when never used. */
  lastUsedAt: string | null;
}

/**
 * The storage contract every backend implements and the shared conformance suite checks.
 * Every method is scoped by tenant; no method can reach another tenant's rows.
 * Writes are atomic: a batch is stored whole or not at all.
 */
export interface MemoryStore {
  /** Short backend name, e.g. 'sqlite' or 'postgres'. */
  readonly kind: string;
  /**
   * Optional. True when the store answers each call on the calling thread (an embedded database):
   * its calls cannot overlap, so callers run them one after another rather than interleaving them.
   * @default false
   */
  readonly answersInline?: boolean | undefined;
  /** Applies pending migrations. Idempotent. */
  migrate(): Promise<void>;
  /**
   * Inserts all records in one transaction, with a `created` history event each. Fails whole on
   * any duplicate id.
   */
  insert(records: MemoryRecord[], context?: WriteContext): Promise<void>;
  /** Fetches by id within a tenant; missing ids are simply absent. Order follows `ids`. */
  get(tenant: string, ids: string[]): Promise<Memory[]>;
  /**
   * Text and last update of the given ids (missing ids absent, order free) — what ranking needs
   * from a candidate, without the rest of the row; with `context`, each text's
   * {@link MemoryContext} too (a store that cannot answer it leaves `context` out). Optional:
   * callers fall back to {@link get}.
   */
  getTexts?(tenant: string, ids: string[], options?: TextOptions): Promise<MemoryText[]>;
  /** Vectors for the given ids (only rows that have one). */
  getVectors(tenant: string, ids: string[]): Promise<Map<string, Float32Array>>;
  /**
   * Optional. For each id with a stored vector, the best cosine of that vector with any of
   * `queries`, bit for bit what `maxCosine(vector, queries)` over {@link getVectors} gives (0 with
   * no queries); ids without a vector are absent. Lets a store that keeps vectors in memory score
   * them where they are (SQLite: from its vector cache, with each row's norm kept) instead of
   * copying them out. Queries must be Float32Arrays (else INVALID_VECTOR).
   */
  storedCosines?(tenant: string, ids: string[], queries: readonly Float32Array[]): Promise<Map<string, number>>;
  /**
   * Applies a patch. When `vector` is given (or null), the vector and embedding info are replaced.
   * Returns the updated memory, or null when the id does not exist in the tenant. A change of
   * content or status adds 1 to `version`; a history event (`updated`, `archived`, `restored`,
   * `deleted` for a status, or `re-embedded` for a vector alone) is written in the same transaction.
   * A `statedAt` change moves `validFrom` when the memory had no validity of its own.
   */
  update(
    tenant: string,
    id: string,
    patch: StorePatch,
    vector?: StoreVector,
    context?: WriteContext,
  ): Promise<Memory | null>;
  /**
   * Hard-deletes the ids within the tenant, with a `deleted` history event each (events outlive
   * the row). Returns how many rows were removed.
   */
  delete(tenant: string, ids: string[], context?: WriteContext): Promise<number>;
  list(filter: MemoryFilter, options?: ListOptions): Promise<Page<Memory>>;
  /**
   * Optional. The ids and last updates of the newest `limit` rows matching the filter: the items of
   * `list(filter, { order: 'updatedAt', direction: 'desc', limit })`, in that order, without
   * reading the rows (the searcher's working path ranks them and then reads only its best). With
   * an `analyzer`, each may carry its `document` as with {@link SearchExtras.analyzer}; with
   * `storedCosinesWith`, its `storedCosine` as with {@link LexicalQuery.storedCosinesWith}.
   */
  newestIds?(filter: MemoryFilter, limit: number, options?: NewestIdsOptions): Promise<NewestId[]>;
  count(filter: MemoryFilter): Promise<number>;
  stats(filter: MemoryFilter): Promise<ScopeStats>;
  /** Exact (or ≥ 99%-exact) top-`limit` rows by cosine among rows of `model` matching the filter. */
  denseSearch(query: DenseQuery): Promise<DenseCandidate[]>;
  /** Top-`limit` rows from the backend's full-text index, any term matching. */
  lexicalSearch(query: LexicalQuery): Promise<LexicalCandidate[]>;
  /**
   * Optional. Several dense searches answered together (the multi-path searcher asks for every
   * path of a scope at once): result `i` is what `denseSearch` returns for the query with
   * `filter.types = groups[i].types` and `limit = groups[i].limit`. Lets a backend scan its rows
   * once; callers fall back to one {@link denseSearch} per group.
   */
  denseSearchGroups?(query: DenseGroupQuery): Promise<DenseCandidate[][]>;
  /**
   * Optional. Several lexical searches answered together: result `i` is what `lexicalSearch`
   * returns for the query with `filter.types = groups[i].types` and `limit = groups[i].limit`.
   * Callers fall back to one {@link lexicalSearch} per group.
   */
  lexicalSearchGroups?(query: LexicalGroupQuery): Promise<LexicalCandidate[][]>;
  /** Adds 1 to the use count of each id and sets its last-used time. */
  recordUsage(tenant: string, ids: string[], at: string): Promise<void>;
  /**
   * Optional. Many uses in one write: adds each entry's `count` to its id's use count and sets
   * its last-used time to `lastUsedAt` (kept when null); entries of one id add up (the latest
   * time wins); ids not in the tenant are ignored. The usage recorder writes a window of recalls
   * with it; without it, it replays {@link recordUsage}.
   */
  addUsage?(tenant: string, usage: UsageEntry[]): Promise<void>;
  /**
   * Optional. Rewrites the storage so that what updates and deletes overwrote no longer lies in
   * it (SQLite: FTS5's merged-away postings, the file's free pages, the WAL); `engram scrub`
   * calls it after it masked something. Slow (the whole database is rewritten) and exclusive
   * while it runs.
   */
  compact?(): Promise<void>;
  /**
   * Optional. Sets use counts and last-used times exactly (data import, `engram import`); ids not
   * in the tenant are ignored. Without it, importers replay usage through {@link recordUsage}.
   */
  setUsage?(tenant: string, usage: UsageEntry[]): Promise<void>;
  /**
   * Optional. Loads what the backend caches for the scopes it served recently (before the last
   * close), so their first query after a restart costs about what a warm one does. The store keeps
   * serving meanwhile.
   */
  warm?(): Promise<WarmReport>;
  /**
   * Optional. Formation's storage: episodes, the history log, the work queue and the window
   * transaction, in the same database (the SQL stores have it).
   */
  readonly formation?: FormationStore | undefined;
  close(): Promise<void>;
}
