import { CONTEXT_ANALYZER, type DocumentAnalyzer } from '../../text/document-analyzer.js';

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file, or `':memory:'` for a private in-memory database. */
  path: string;
  /** How long a write waits for another connection's lock before failing with STORE_BUSY. @default 5000 */
  busyTimeoutMs?: number | undefined;
  /** Apply pending migrations when opening. @default true */
  migrate?: boolean | undefined;
  /**
   * `PRAGMA synchronous`. 'FULL' makes every acknowledged write survive power loss; 'NORMAL'
   * survives a process crash only, and is faster. @default 'FULL'
   */
  synchronous?: 'FULL' | 'NORMAL' | undefined;
  /**
   * Bytes of a database file SQLite reads through a memory map (`PRAGMA mmap_size`) instead of
   * copying each page it needs into its page cache: a row read outside the row cache (a recall's
   * new hits, a partition loading) costs about a seventh less. Address space only; the OS pages
   * the file in as it is read. 0 reads through the page cache alone (the choice where an I/O error
   * must surface as an error: a failed read of a mapped page ends the process). Ignored for
   * `':memory:'`. @default 268435456 (256 MiB)
   */
  mmapBytes?: number | undefined;
  /** Keep per-partition vectors in memory for fast exact dense search. @default true */
  vectorCache?: boolean | undefined;
  /** Upper bound on cached vector bytes before least recently used partitions are dropped. @default 536870912 (512 MiB) */
  vectorCacheMaxBytes?: number | undefined;
  /**
   * Upper bound on the bytes of whole rows kept in memory for `get` (a recall's hits, a search's
   * pools; kept decoded, handed out as copies), least recently used dropped first; 0 keeps none.
   * Needs `vectorCache`, whose change tracking keeps them current. @default 67108864 (64 MiB)
   */
  rowCacheMaxBytes?: number | undefined;
  /**
   * Partitions with at least this many vectors first scan an int8 copy (4x less memory traffic)
   * and re-score the best `limit + 8` plus a quarter more (at least 32) exactly from float32. `Infinity` keeps
   * every scan in float32. @default 8192
   */
  vectorQuantizeAbove?: number | undefined;
  /** Threads for one native vector scan (0 = all cores). One is fastest for single queries here. @default 1 */
  searchThreads?: number | undefined;
  /**
   * A lexical query whose terms match at most this many rows in total (by document frequency)
   * is ranked in full by FTS5 bm25. Above it, terms found in more than `lexicalCommonShare` of
   * all rows are dropped (when rarer terms remain); if the rest still match more rows than this,
   * the bounded path ranks only windows of the newest matches (see `lexicalScanCap`).
   * @default 4000
   */
  lexicalRankAllBelow?: number | undefined;
  /** Share of all rows above which a term counts as common (see `lexicalRankAllBelow`). @default 0.2 */
  lexicalCommonShare?: number | undefined;
  /** Matches per term and window read by the bounded lexical path (at most 8 windows). @default 2000 */
  lexicalScanCap?: number | undefined;
  /**
   * Where the vector cache remembers the partitions it holds (ids and sizes, no content), so that
   * {@link SqliteStore.warm} can load them again after a restart; null remembers nothing.
   * @default `<path>-partitions.json` for a database file, null for `':memory:'`
   */
  recentPartitionsFile?: string | null | undefined;
  /**
   * Analyses each row's text and context once, when its partition's lexical index loads it or a
   * write changes it, into the document a recall profile ranks it by (the default profile's:
   * stemmed text, context, speakers), kept as term ids, so recalls and searches read documents
   * instead of tokenising their candidates. Costs 4 bytes a token (about 250 bytes for a
   * conversation turn with its context) plus the store's term dictionary, counted against
   * `vectorCacheMaxBytes`, and roughly doubles the time to build a lexical index. null analyses
   * nothing (every candidate is then tokenised when it is ranked). @default CONTEXT_ANALYZER
   */
  analyzer?: DocumentAnalyzer | null | undefined;
  /** Change-log entries kept for other processes' caches (older ones are pruned). @default 200000 */
  changeLogRetention?: number | undefined;
  /** Clock for bookkeeping timestamps (migration records). @default () => new Date() */
  clock?: (() => Date) | undefined;
}

/** Which vector partition {@link SqliteStore.preloadVectors} should load. */
export interface VectorPartitionKey {
  tenant: string;
  model: string;
  dim: number;
  /** One user's partition; omit for the all-users partition used by queries without a user. */
  user?: string | undefined;
}

/** {@link SqliteStoreOptions} with every default applied. */
export type ResolvedSqliteOptions = Required<Omit<SqliteStoreOptions, 'path'>> & { path: string };

/** Applies the documented defaults. */
export function resolveSqliteOptions(options: SqliteStoreOptions): ResolvedSqliteOptions {
  return {
    path: options.path,
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    migrate: options.migrate ?? true,
    synchronous: options.synchronous ?? 'FULL',
    mmapBytes: Math.max(0, Math.floor(options.mmapBytes ?? 256 * 1024 * 1024)),
    vectorCache: options.vectorCache ?? true,
    vectorCacheMaxBytes: options.vectorCacheMaxBytes ?? 512 * 1024 * 1024,
    rowCacheMaxBytes: options.rowCacheMaxBytes ?? 64 * 1024 * 1024,
    searchThreads: options.searchThreads ?? 1,
    vectorQuantizeAbove: options.vectorQuantizeAbove ?? 8192,
    lexicalCommonShare: options.lexicalCommonShare ?? 0.2,
    lexicalRankAllBelow: options.lexicalRankAllBelow ?? 4_000,
    lexicalScanCap: options.lexicalScanCap ?? 2000,
    changeLogRetention: options.changeLogRetention ?? 200_000,
    analyzer: options.analyzer === undefined ? CONTEXT_ANALYZER : options.analyzer,
    recentPartitionsFile:
      options.recentPartitionsFile !== undefined
        ? options.recentPartitionsFile
        : options.path === ':memory:' || options.path === ''
          ? null
          : `${options.path}-partitions.json`,
    clock: options.clock ?? (() => new Date()),
  };
}
