import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import { EngramError } from '../../model/errors.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../util/sqlite-database.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type {
  DenseCandidate,
  DenseGroupQuery,
  DenseQuery,
  LexicalGroupQuery,
  LexicalQuery,
  LexicalCandidate,
  MemoryRecord,
  MemoryText,
  TextOptions,
  UsageEntry,
} from '../memory-store.js';
import { denseGroupQueries, lexicalGroupQueries } from '../query-validation.js';
import { assertTenant } from '../record-validation.js';
import { filterWhere } from '../sql/filter-where.js';
import { patchAssignments, RECORD_COLUMNS, recordValues } from '../sql/memory-columns.js';
import { SqlMemoryStore, type RowChange, type WriteKind } from '../sql/sql-memory-store.js';
import { scoreVectorRows, vectorScanSql, type VectorRow } from '../sql/vector-rows.js';
import type { NewestRow } from '../sql/valid-among-newest.js';
import { ftsDocument } from './fts-text.js';
import { applySqliteMigrations } from './migrations.js';
import { filterPredicate } from './slot-filter.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { toEngramError } from './sqlite-errors.js';
import { SqliteLexicalSearch } from './sqlite-lexical-search.js';
import { SqliteRunner } from './sqlite-runner.js';
import {
  resolveSqliteOptions,
  type ResolvedSqliteOptions,
  type SqliteStoreOptions,
  type VectorPartitionKey,
} from './sqlite-store-options.js';
import { ALL_USERS, VectorCache } from './vector-cache.js';
import type { DocumentOf } from './vector-partition.js';
import type { TermDocument } from '../../text/term-document.js';
import { CacheWarmUp } from './cache-warm-up.js';
import { RowCache } from './row-cache.js';
import { RecentlyUsed } from './recently-used.js';
import { noteLocalCommit } from './data-version-check.js';
import type { Maybe } from '../sql/maybe-async.js';
import type { EmbeddingInfo, Memory } from '../../model/memory.js';
import type { Scope } from '../../model/scope.js';
import type { WarmReport } from '../../model/warm-report.js';
import { unitVector } from '../../vector/unit-cosine.js';

export type { SqliteStoreOptions, VectorPartitionKey } from './sqlite-store-options.js';

const INSERT_MEMORY = `INSERT INTO memories (${RECORD_COLUMNS.map((c) => c.column).join(', ')})
  VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})`;

/** Write-side statements beside the row: the tag table, FTS5 and the change log other processes' caches follow. */
const SQL = {
  insertTag: 'INSERT OR IGNORE INTO memory_tags (pk, tag) VALUES (?, ?)',
  deleteTags: 'DELETE FROM memory_tags WHERE pk = ?',
  insertFts: 'INSERT INTO memories_fts (rowid, body, uni) VALUES (?, ?, ?)',
  deleteFts: 'DELETE FROM memories_fts WHERE rowid = ?',
  logChange: 'INSERT INTO memory_changes (tenant, id) VALUES (?, ?)',
  pruneChanges: 'DELETE FROM memory_changes WHERE seq <= (SELECT max(seq) FROM memory_changes) - ?',
} as const;

/** Reads {@link SqliteStore} remembers while nothing changes: the searcher's few repeated ones per scope. */
const UNCHANGED_READS = 64;

function openDatabase(options: ResolvedSqliteOptions): SqliteDatabase {
  const db = openSqliteDatabase(options.path, { timeout: options.busyTimeoutMs });
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  if (options.path !== ':memory:' && options.path !== '') {
    db.pragma('journal_mode = WAL');
    db.pragma(`mmap_size = ${options.mmapBytes}`);
  }
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma('foreign_keys = ON');
  if (options.migrate) applySqliteMigrations(db, undefined, options.clock);
  return db;
}

/**
 * The SQLite backend of the store engine (libsql's SQLite, WAL, FTS5, float32 vector BLOBs, an
 * in-memory exact vector cache kept in step across processes). Synchronous inside: every call
 * runs to the end before it returns its promise.
 */
export class SqliteStore extends SqlMemoryStore {
  readonly kind = 'sqlite';
  readonly answersInline = true;
  protected readonly dialect = sqliteDialect;
  protected readonly runner: SqliteRunner;
  private readonly db: SqliteDatabase;
  private readonly options: ResolvedSqliteOptions;
  private readonly lexical: SqliteLexicalSearch;
  /** Created on the first dense search (the schema must exist by then). */
  private lazyCache: VectorCache | null = null;
  /** Remembers the cache's partitions for the next start (null: `recentPartitionsFile` is null). */
  private readonly warmUp: CacheWarmUp | null;
  private writesSincePrune = 0;
  /** Hot whole rows; kept only beside the vector cache, whose change tracking tells when to drop them. */
  private readonly rows: RowCache;
  /** Recent reads remembered while the database is unchanged (see `unchangedRead`). */
  private readonly unchangedReads = new RecentlyUsed<{ generation: number; value: unknown }>(UNCHANGED_READS);

  constructor(options: SqliteStoreOptions) {
    super();
    this.options = resolveSqliteOptions(options);
    try {
      this.db = openDatabase(this.options);
    } catch (error) {
      throw toEngramError(error, 'open');
    }
    this.runner = new SqliteRunner(this.db);
    this.lexical = new SqliteLexicalSearch(this.runner, this.options);
    this.rows = new RowCache(this.options.vectorCache ? this.options.rowCacheMaxBytes : 0);
    const file = this.options.recentPartitionsFile;
    this.warmUp = file === null ? null : new CacheWarmUp(file);
  }

  /** The underlying connection, for diagnostics and tests. Do not write through it. */
  get database(): SqliteDatabase {
    this.assertOpen();
    return this.db;
  }

  /** Rows skipped by the vector cache because their blob was corrupt. */
  get corruptVectorsSkipped(): number {
    return this.lazyCache?.corruptSkipped ?? 0;
  }

  /**
   * Size of the in-memory vector cache and its lexical indexes (observability): `bytes` as the
   * cache counts them (never above `vectorCacheMaxBytes` for long: the least recently used
   * partitions are dropped first) for `memories` cached vectors; and of the row cache, `rows`
   * whole rows in `rowBytes` (at most `rowCacheMaxBytes`).
   */
  vectorCacheStats(): {
    partitions: number;
    lexicalIndexes: number;
    memories: number;
    bytes: number;
    maxBytes: number;
    corruptSkipped: number;
    rows: number;
    rowBytes: number;
  } {
    const cache = this.lazyCache;
    return {
      partitions: cache?.partitionCount ?? 0,
      lexicalIndexes: cache?.lexicalIndexCount ?? 0,
      memories: cache?.memoryCount ?? 0,
      bytes: cache?.cachedBytes ?? 0,
      maxBytes: this.options.vectorCacheMaxBytes,
      corruptSkipped: cache?.corruptSkipped ?? 0,
      rows: this.rows.size,
      rowBytes: this.rows.bytes,
    };
  }

  /**
   * Optional method of the contract: loads the partitions this database's cache held before
   * (see `recentPartitionsFile`), most recently used first and within `vectorCacheMaxBytes`,
   * a chunk of rows at a time so the process keeps serving meanwhile; a search of a partition
   * still loading waits for it. Resolves when done.
   */
  warm(): Promise<WarmReport> {
    return this.guard('warm', async () => {
      const cache = this.vectorCache();
      const none = { partitions: [], skipped: 0, cachedMemories: 0, cachedBytes: 0, ms: 0 };
      if (cache === null || this.warmUp === null) return none;
      return this.warmUp.warm(cache, this.options.vectorCacheMaxBytes);
    });
  }

  /**
   * Loads a vector partition and its lexical index into the cache ahead of the first query
   * (which otherwise pays for reading every vector and text of the partition once). Returns the
   * number of cached vectors.
   */
  preloadVectors(key: VectorPartitionKey): Promise<number> {
    return this.guard('preloadVectors', () => {
      assertTenant(key.tenant);
      const cache = this.vectorCache();
      if (cache === null) return 0;
      return cache.lexical(key.tenant, key.model, key.dim, key.user ?? ALL_USERS).partition.size;
    });
  }

  /**
   * Optional method of the contract: FTS5 `optimize` (one merged segment, so the postings of
   * rewritten and deleted rows are gone, not only tombstoned), `VACUUM` (the file rebuilt: no
   * free page keeps an old row), then `wal_checkpoint(TRUNCATE)` (the WAL, which VACUUM wrote
   * through, emptied). A reader of another process that holds a transaction open keeps the WAL
   * from being truncated: then this rejects with STORE_BUSY.
   */
  compact(): Promise<void> {
    return this.guard('compact', () => {
      this.db.exec("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')");
      this.db.exec('VACUUM');
      if (this.options.path === ':memory:' || this.options.path === '') return;
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (result !== undefined && result.busy !== 0) {
        throw new EngramError('STORE_BUSY', 'another connection kept the WAL from being truncated; run it again', {
          isRetryable: true,
        });
      }
    });
  }

  private vectorCache(): VectorCache | null {
    if (this.lazyCache === null && this.options.vectorCache) {
      const cache: VectorCache = new VectorCache(this.db, {
        maxBytes: this.options.vectorCacheMaxBytes,
        reloadAbove: 5000,
        quantizeAbove: this.options.vectorQuantizeAbove,
        analyzer: this.options.analyzer,
        onChange: () => this.warmUp?.remember(cache),
        onForeignWrite: () => this.rows.clear(),
      });
      this.lazyCache = cache;
    }
    return this.lazyCache;
  }

  protected applyMigrations(): void {
    applySqliteMigrations(this.db, undefined, this.options.clock);
  }

  protected insertRows(_sql: unknown, records: MemoryRecord[]): void {
    const insertRow = this.runner.prepare(INSERT_MEMORY);
    for (const r of records) {
      const pk = Number(insertRow.run(...recordValues(r, this.dialect)).lastInsertRowid);
      this.writeTags(pk, r.tags);
      this.writeFts(pk, r.text);
      this.logChange(r.scope.tenant, r.id);
    }
  }

  protected updateRow(_sql: unknown, change: RowChange): SelectedMemory | null {
    const { tenant, id, patch } = change;
    const found = this.runner
      .prepare<[string, string], { pk: number }>('SELECT pk FROM memories WHERE tenant = ? AND id = ?')
      .get(tenant, id);
    if (found === undefined) return null;
    const params = this.dialect.params();
    const sets = patchAssignments(patch, change.vector, this.dialect, params);
    this.runner
      .prepare(`UPDATE memories SET ${sets.join(', ')} WHERE pk = ${params.add(found.pk)}`)
      .run(...params.values);
    if (patch.tags !== undefined) {
      this.runner.prepare(SQL.deleteTags).run(found.pk);
      this.writeTags(found.pk, patch.tags);
    }
    if (patch.text !== undefined) {
      this.runner.prepare(SQL.deleteFts).run(found.pk);
      this.writeFts(found.pk, patch.text);
    }
    this.logChange(tenant, id);
    return (
      this.runner
        .prepare<[number], SelectedMemory>(`SELECT ${MEMORY_SELECT} FROM memories m WHERE m.pk = ?`)
        .get(found.pk) ?? null
    );
  }

  protected deleteRows(_sql: unknown, tenant: string, ids: string[]): number {
    const removed = this.runner
      .prepare<[string, string], { pk: number; id: string }>(
        'DELETE FROM memories WHERE tenant = ? AND id IN (SELECT value FROM json_each(?)) RETURNING pk, id',
      )
      .all(tenant, JSON.stringify(ids));
    for (const row of removed) {
      this.runner.prepare(SQL.deleteFts).run(row.pk);
      this.logChange(tenant, row.id);
    }
    return removed.length;
  }

  /** Logs a row's change for other processes' caches, and drops it from this one's row cache. */
  private logChange(tenant: string, id: string): void {
    this.rows.forget(tenant, id);
    this.runner.prepare(SQL.logChange).run(tenant, id);
  }

  private writeTags(pk: number, tags: readonly string[]): void {
    const insertTag = this.runner.prepare(SQL.insertTag);
    for (const tag of tags) insertTag.run(pk, tag);
  }

  private writeFts(pk: number, text: string): void {
    const doc = ftsDocument(text);
    this.runner.prepare(SQL.insertFts).run(pk, doc.body, doc.uni);
  }

  protected incrementUsage(_sql: unknown, tenant: string, usage: UsageEntry[]): void {
    const add = this.runner.prepare(
      'UPDATE memories SET use_count = use_count + ?, last_used_at = coalesce(?, last_used_at) WHERE tenant = ? AND id = ?',
    );
    noteLocalCommit();
    for (const entry of usage) add.run(entry.count, entry.lastUsedAt, tenant, entry.id);
    // A recalled row stays cached with its new count, once that is committed.
    this.reviseRows(tenant, usage, (memory, entry) => ({
      ...memory,
      usage: { count: memory.usage.count + entry.count, lastUsedAt: entry.lastUsedAt ?? memory.usage.lastUsedAt },
    }));
  }

  protected writeUsage(_sql: unknown, tenant: string, usage: UsageEntry[]): void {
    const set = this.runner.prepare('UPDATE memories SET use_count = ?, last_used_at = ? WHERE tenant = ? AND id = ?');
    noteLocalCommit();
    for (const entry of usage) set.run(entry.count, entry.lastUsedAt, tenant, entry.id);
    this.reviseRows(tenant, usage, (memory, entry) => ({
      ...memory,
      usage: { count: entry.count, lastUsedAt: entry.lastUsedAt },
    }));
  }

  /**
   * Revises the cached rows of a usage write once it commits; inside a transaction opened
   * elsewhere, whose outcome this store does not see, forgets them instead.
   */
  private reviseRows(
    tenant: string,
    usage: readonly UsageEntry[],
    revised: (memory: Memory, entry: UsageEntry) => Memory,
  ): void {
    if (!this.runner.afterCommit(() => this.rows.revise(tenant, usage, revised)))
      for (const entry of usage) this.rows.forget(tenant, entry.id);
  }

  protected override afterWrite(kind: WriteKind, rows: number): void {
    noteLocalCommit();
    this.lazyCache?.markDirty();
    this.lexical.markDirty();
    if (kind === 'insert') this.maybePruneChanges(rows);
  }

  private maybePruneChanges(writes: number): void {
    this.writesSincePrune += writes;
    if (this.writesSincePrune < 10_000) return;
    this.writesSincePrune = 0;
    try {
      this.runner.prepare(SQL.pruneChanges).run(this.options.changeLogRetention);
    } catch {
      // Pruning is housekeeping; a busy database simply prunes next time.
    }
  }

  protected override cachedTexts(tenant: string, ids: string[], options: TextOptions): Map<string, MemoryText> | null {
    // Rows a lexical index holds are answered from memory; the rest are read.
    return this.lazyCache?.texts(tenant, ids, options) ?? null;
  }

  protected override cachedDocuments(
    tenant: string,
    ids: string[],
    analyzer: string,
  ): Map<string, TermDocument> | null {
    return this.lazyCache?.documents(tenant, ids, analyzer) ?? null;
  }

  protected override get remembersReads(): boolean {
    return this.options.vectorCache;
  }

  protected override unchangedRead<T>(name: string, key: unknown, read: () => Maybe<T>): Maybe<T> {
    const cache = this.vectorCache();
    // Inside a transaction its own uncommitted writes are not yet counted as changes.
    if (cache === null || this.db.inTransaction) return read();
    cache.sync();
    const generation = cache.generation;
    return this.unchangedReads.take(
      `${name}\u0000${JSON.stringify(key)}`,
      () => ({ generation, value: read() }),
      (known) => known.generation === generation,
    ).value as Maybe<T>;
  }

  protected override cachedMemories(tenant: string, ids: readonly string[]): Map<string, Memory> | null {
    if (this.rows.size === 0) return null;
    // Another connection's commit (seen by the cache's check) drops every cached row first.
    this.vectorCache()?.sync();
    return this.rows.take(tenant, ids);
  }

  protected override memoriesRead(tenant: string, memories: readonly Memory[]): void {
    // A row read inside a transaction may be rolled back with it.
    if (!this.db.inTransaction) this.rows.remember(tenant, memories);
  }

  protected override cachedVectors(tenant: string, ids: string[]): Map<string, Float32Array> | null {
    // Vectors a partition holds bit for bit come from memory; the rest are read.
    return this.lazyCache?.vectors(tenant, ids) ?? null;
  }

  protected override cachedCosines(
    tenant: string,
    ids: string[],
    queries: readonly Float32Array[],
  ): Map<string, number> | null {
    // Scored where a partition holds the vectors bit for bit, from its rows and kept norms.
    return this.lazyCache?.storedCosines(tenant, ids, queries) ?? null;
  }

  protected override prepareNewest(scope: Scope, space: EmbeddingInfo, analyzer: string | undefined): Maybe<void> {
    const cache = this.vectorCache();
    if (cache === null) return undefined;
    // The partition a dense search of the scope reads, and with the store's analyzer the lexical
    // index a lexical search builds: loaded (or warmed) once, then every row they hold is scored
    // and has its document in memory.
    const user = scope.user ?? ALL_USERS;
    return this.whenWarm(scope, space.model, space.dim, () => {
      if (analyzer !== undefined && analyzer === cache.analyzerName)
        cache.lexical(scope.tenant, space.model, space.dim, user);
      else cache.partition(scope.tenant, space.model, space.dim, user);
    });
  }

  protected override cachedRowCosines(
    tenant: string,
    rows: readonly NewestRow[],
    queries: readonly Float32Array[],
  ): Array<number | undefined> | null {
    // Rows read with their pk are found by it: no id hashed and compared with the cache's own.
    const pks = rows.map((r) => r.pk);
    if (!pks.every((pk): pk is number => typeof pk === 'number')) return super.cachedRowCosines(tenant, rows, queries);
    return this.lazyCache?.storedCosinesOfPks(tenant, pks, queries) ?? null;
  }

  protected denseCandidates(query: DenseQuery, unit: Float32Array): Maybe<DenseCandidate[]> {
    return this.whenWarm(query.filter.scope, query.model, unit.length, () => this.denseRows(query, unit));
  }

  /** Where the query asks for an analyzer's documents: the partition's, by pk, when the cache keeps them. */
  private documentsOf(cache: VectorCache, query: DenseQuery | DenseGroupQuery, dim: number): DocumentOf | null {
    if (query.analyzer === undefined) return null;
    const { tenant, user } = query.filter.scope;
    return cache.documentsOf(tenant, { model: query.model, dim }, user ?? ALL_USERS, query.analyzer);
  }

  private denseRows(query: DenseQuery, unit: Float32Array): DenseCandidate[] {
    const cache = this.vectorCache();
    if (cache === null) return this.denseScan(query, unit);
    const { filter } = query;
    const partition = cache.partition(filter.scope.tenant, query.model, unit.length, filter.scope.user ?? ALL_USERS);
    // A short id list is looked up slot by slot rather than tested against every cached row
    // (the rest of the filter is still tested on each).
    if (filter.ids !== undefined && filter.ids.length <= partition.size / 8) {
      const rest = filterPredicate({ ...filter, ids: undefined }, partition.statuses(), (at) =>
        partition.coversValidAt(at),
      );
      return partition.searchIds(unit, filter.ids, query.limit, rest, this.documentsOf(cache, query, unit.length));
    }
    return partition.search(
      unit,
      query.limit,
      filterPredicate(filter, partition.statuses(), (at) => partition.coversValidAt(at)),
      { threads: this.options.searchThreads, documentOf: this.documentsOf(cache, query, unit.length) },
    );
  }

  /** The reference design: read every matching blob per query and score it in JS. */
  private denseScan(query: DenseQuery, unit: Float32Array): DenseCandidate[] {
    const params = this.dialect.params();
    const where = filterWhere(query.filter, this.dialect, params);
    const sql = vectorScanSql(this.dialect.table, where, query.model, unit.length, params);
    return scoreVectorRows(this.runner.prepare<unknown[], VectorRow>(sql).iterate(...params.values), unit, query.limit);
  }

  /** Optional method of the contract: every group from one pass over the vector cache (see `VectorPartition.searchGroups`). */
  denseSearchGroups(query: DenseGroupQuery): Promise<DenseCandidate[][]> {
    return this.guard('denseSearchGroups', () => {
      const queries = denseGroupQueries(query);
      const unit = unitVector(query.vector);
      if (unit === null || unit.every((v) => v === 0)) return queries.map(() => []);
      return this.whenWarm(query.filter.scope, query.model, unit.length, () => {
        const cache = this.vectorCache();
        if (cache === null || query.filter.ids !== undefined) return queries.map((q) => this.denseRows(q, unit));
        const { tenant, user } = query.filter.scope;
        const partition = cache.partition(tenant, query.model, unit.length, user ?? ALL_USERS);
        const groups = queries.map((q) => ({
          limit: q.limit,
          filter: filterPredicate(q.filter, partition.statuses(), (at) => partition.coversValidAt(at)),
        }));
        return partition.searchGroups(unit, groups, {
          threads: this.options.searchThreads,
          documentOf: this.documentsOf(cache, query, unit.length),
        });
      });
    });
  }

  /** Optional method of the contract: every group from one read of the terms' postings (see `SqliteLexicalSearch.searchGroups`). */
  lexicalSearchGroups(query: LexicalGroupQuery): Promise<LexicalCandidate[][]> {
    return this.guard('lexicalSearchGroups', () => {
      const queries = lexicalGroupQueries(query);
      const { space } = query;
      if (space === undefined) return this.lexical.searchGroups(queries, null);
      return this.whenWarm(query.filter.scope, space.model, space.dim, () =>
        this.lexical.searchGroups(queries, this.vectorCache()),
      );
    });
  }

  protected lexicalCandidates(query: LexicalQuery): Maybe<LexicalCandidate[]> {
    const { space } = query;
    if (space === undefined) return this.lexical.search(query, null);
    return this.whenWarm(query.filter.scope, space.model, space.dim, () =>
      this.lexical.search(query, this.vectorCache()),
    );
  }

  /** Runs `work` now, or once the partition it reads has finished warming (see {@link warm}). */
  private whenWarm<T>(scope: Scope, model: string, dim: number, work: () => T): Maybe<T> {
    const warming = this.lazyCache?.whileWarming(scope.tenant, model, dim, scope.user ?? ALL_USERS);
    return warming ? warming.then(work) : work();
  }

  protected closeConnection(): void {
    if (this.lazyCache !== null) this.warmUp?.rememberNow(this.lazyCache);
    this.lazyCache?.clear();
    this.rows.clear();
    this.db.close();
  }
}

/**
 * Opens (and by default migrates) a SQLite store, creating the file's folder when missing.
 * `path: ':memory:'` gives a private in-memory database. Throws EngramError('CONFIG_ERROR') when
 * the folder cannot be created, ('STORE_ERROR' | 'STORE_BUSY' | 'MIGRATION_ERROR') when the file
 * cannot be opened or migrated.
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  if (options === null || typeof options !== 'object' || typeof options.path !== 'string') {
    throw new EngramError('CONFIG_ERROR', 'createSqliteStore needs a path (a file or ":memory:")');
  }
  if (options.path !== ':memory:' && options.path !== '') {
    try {
      mkdirSync(dirname(options.path), { recursive: true });
    } catch (cause) {
      throw new EngramError('CONFIG_ERROR', `cannot create the folder for ${options.path}`, { cause });
    }
  }
  return new SqliteStore(options);
}
