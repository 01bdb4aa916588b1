import { randomUUID } from 'node:crypto';
import { EngramError } from '../../model/errors.js';
import type { FormationStore } from '../../model/formation/formation-store.js';
import type { EmbeddingInfo, Memory } from '../../model/memory.js';
import type { ListOptions, MemoryFilter, Page, ScopeStats } from '../../model/memory-filter.js';
import type { Scope } from '../../model/scope.js';
import type { TermDocument } from '../../text/term-document.js';
import { maxCosines } from '../../vector/max-cosine.js';
import { unitVector } from '../../vector/unit-cosine.js';
import { distinctSpaces } from './embedding-spaces.js';
import { contextFromColumns, type ContextColumns } from '../memory-context.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type {
  DenseCandidate,
  DenseQuery,
  LexicalCandidate,
  LexicalQuery,
  MemoryRecord,
  MemoryStore,
  MemoryText,
  NewestId,
  NewestIdsOptions,
  TextOptions,
  StorePatch,
  StoreVector,
  UsageEntry,
  WriteContext,
} from '../memory-store.js';
import { assertDenseQuery, assertLexicalQuery, assertTimestampArgument, assertUpdate } from '../query-validation.js';
import {
  assertFilter,
  assertIds,
  assertQueryVectors,
  assertRecord,
  assertSpace,
  assertTenant,
  assertUsageEntries,
  assertVector,
} from '../record-validation.js';
import { mergeUsage } from '../merge-usage.js';
import { filterWhere, VALID_FROM_SQL } from './filter-where.js';
import { validAmongNewest, type NewestRow } from './valid-among-newest.js';
import { canonicalInstant } from '../instant.js';
import { pageOf, pageSql, planList } from './list-page.js';
import { andThen, type Maybe } from './maybe-async.js';
import type { StoredRecord } from './memory-columns.js';
import { assertHistoryEvents } from './history-rows.js';
import { deleteWithHistory, insertWithHistory, updateWithHistory } from './memory-writes.js';
import type { QueryRunner, SqlQueries } from './query-runner.js';
import { inRequestedOrder } from './rows-by-ids.js';
import { scopeStats, statsSql, type StatsGroup } from './scope-stats.js';
import type { SqlDialect, SqlParams } from './sql-dialect.js';
import type { RowChange, SqlEngine, WriteKind } from './sql-engine.js';
import { SqlFormationStore } from './sql-formation-store.js';
import { decodeVectorRows, type VectorRow } from './vector-rows.js';

export type { RowChange, WriteKind } from './sql-engine.js';

/** A text row read with its context columns (JSON as text or decoded), as {@link MemoryText} with its context. */
function textWithContext(row: MemoryText & ContextColumns): MemoryText {
  return { id: row.id, text: row.text, updatedAt: row.updatedAt, type: row.type, context: contextFromColumns(row) };
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** The distinct embedding spaces (model, dimension) of records that carry a vector. */
function spacesOf(records: readonly MemoryRecord[]): EmbeddingInfo[] {
  return distinctSpaces(records.map((r) => (r.vector ? r.embedding : undefined)));
}

/**
 * The SQL store engine: the whole {@link MemoryStore} contract — validation, filters, pages and
 * cursors, reads in the order of the requested ids, stats, limits, defaults and the row mapping —
 * written once over a {@link SqlDialect} (what the SQL engines spell differently) and a
 * {@link QueryRunner} (how the driver runs reads and transactions). A backend subclass adds only
 * its own SQL for writes and search and its engine features (SQLite: the in-memory vector cache
 * and lexical index, FTS5, the change log; PostgreSQL: tsvector, pgvector, retries).
 *
 * Steps are chained with `then` (see `maybe-async.ts`): with a synchronous driver every call runs
 * synchronously to the end and its transactions never yield.
 */
export abstract class SqlMemoryStore implements MemoryStore {
  abstract readonly kind: string;
  protected abstract readonly dialect: SqlDialect;
  protected abstract readonly runner: QueryRunner;
  private closed = false;
  private formationStore: SqlFormationStore | null = null;
  /** Documents found for remembered newest rows, per analyzer (see `newestWithDocuments`). */
  private readonly newestDocuments = new Map<string, WeakMap<NewestRow, TermDocument>>();

  // ------------------------------------------------------------ what each backend writes itself

  /** Applies pending migrations (idempotent). */
  protected abstract applyMigrations(): Maybe<void>;
  /** Writes validated records (episodes with their columns) inside a transaction. */
  protected abstract insertRows(sql: SqlQueries, records: StoredRecord[]): Maybe<void>;
  /** Applies a validated change inside the update transaction; the row after it, or null when missing. */
  protected abstract updateRow(sql: SqlQueries, change: RowChange): Maybe<SelectedMemory | null>;
  /** Removes rows of the tenant inside the delete transaction; how many were removed. */
  protected abstract deleteRows(sql: SqlQueries, tenant: string, ids: string[]): Maybe<number>;
  /** Adds each entry's count and sets its last-used time unless null (ids distinct) inside a transaction. */
  protected abstract incrementUsage(sql: SqlQueries, tenant: string, usage: UsageEntry[]): Maybe<void>;
  /** Sets usage exactly inside a transaction. */
  protected abstract writeUsage(sql: SqlQueries, tenant: string, usage: UsageEntry[]): Maybe<void>;
  /** Top candidates by cosine with `unit` (the query scaled to unit length, never zero). */
  protected abstract denseCandidates(query: DenseQuery, unit: Float32Array): Maybe<DenseCandidate[]>;
  /** Top full-text candidates of a validated query. */
  protected abstract lexicalCandidates(query: LexicalQuery): Maybe<LexicalCandidate[]>;
  /** Releases the connection (once). */
  protected abstract closeConnection(): Maybe<void>;

  // ------------------------------------------------------------ optional hooks

  /** Before rows with vectors of these embedding spaces are written (pgvector: the space's index). */
  protected prepareVectors(_spaces: EmbeddingInfo[]): Maybe<void> {
    return undefined;
  }

  /** After a write committed (SQLite: caches learn of it). */
  protected afterWrite(_kind: WriteKind, _rows: number): void {}

  /** Texts (with their contexts when `context`) the backend holds in memory (SQLite's lexical index); the rest are read. */
  protected cachedTexts(_tenant: string, _ids: string[], _options: TextOptions): Map<string, MemoryText> | null {
    return null;
  }

  /** Documents `analyzer` made of these rows that the backend holds in memory (SQLite's lexical index). */
  protected cachedDocuments(_tenant: string, _ids: string[], _analyzer: string): Map<string, TermDocument> | null {
    return null;
  }

  /**
   * `read()`, or what the same read (`name` and `key`) gave while the database has not changed
   * since (SQLite, which tracks every change for its caches; the value is shared, so callers copy).
   * This store's own usage writes do not count as changes: a remembered read must not hold usage.
   */
  protected unchangedRead<T>(_name: string, _key: unknown, read: () => Maybe<T>): Maybe<T> {
    return read();
  }

  /** Whether {@link unchangedRead} remembers (a read that is the same every time then costs nothing twice). */
  protected get remembersReads(): boolean {
    return false;
  }

  /** Memories the backend holds in memory (SQLite's row cache), each a copy only this caller holds; the rest are read. */
  protected cachedMemories(_tenant: string, _ids: readonly string[]): Map<string, Memory> | null {
    return null;
  }

  /** Told the memories `get` just read (SQLite keeps copies for the next reads). */
  protected memoriesRead(_tenant: string, _memories: readonly Memory[]): void {}

  /** Copies of the stored vectors the backend holds in memory (SQLite's vector cache); the rest are read. */
  protected cachedVectors(_tenant: string, _ids: string[]): Map<string, Float32Array> | null {
    return null;
  }

  /** `storedCosines` of the vectors the backend holds in memory, computed there; the rest are read. */
  protected cachedCosines(
    _tenant: string,
    _ids: string[],
    _queries: readonly Float32Array[],
  ): Map<string, number> | null {
    return null;
  }

  /**
   * Makes ready what `newestIds` reads from memory for rows of `scope` in `space`: their cosines
   * ({@link cachedRowCosines}), and their documents when `analyzer` is given ({@link cachedDocuments}).
   * SQLite loads the scope's vector partition, as its dense search does, and with `analyzer` (its
   * own) the partition's lexical index, as its lexical search does; nothing here.
   */
  protected prepareNewest(_scope: Scope, _space: EmbeddingInfo, _analyzer: string | undefined): Maybe<void> {
    return undefined;
  }

  /**
   * {@link cachedCosines} of rows read with their `rowKey` (when the dialect has one), in their
   * order (undefined where unknown): SQLite finds them by that key rather than by id.
   */
  protected cachedRowCosines(
    tenant: string,
    rows: readonly NewestRow[],
    queries: readonly Float32Array[],
  ): Array<number | undefined> | null {
    const cosines = this.cachedCosines(
      tenant,
      rows.map((r) => r.id),
      queries,
    );
    return cosines === null ? null : rows.map((r) => cosines.get(r.id));
  }

  // ------------------------------------------------------------ the contract

  migrate(): Promise<void> {
    return this.guard('migrate', () => this.applyMigrations());
  }

  insert(records: MemoryRecord[], context?: WriteContext): Promise<void> {
    return this.guard('insert', () => {
      if (!Array.isArray(records)) throw new EngramError('INVALID_INPUT', 'records must be an array');
      for (const record of records) assertRecord(record);
      if (context?.history !== undefined) assertHistoryEvents(context.history);
      if (records.length === 0 && (context?.history ?? []).length === 0) return undefined;
      return andThen(this.prepareVectors(spacesOf(records)), () =>
        andThen(
          this.runner.transaction('insert', (sql) => insertWithHistory(this.engine, sql, records, context)),
          () => this.afterWrite('insert', records.length),
        ),
      );
    });
  }

  get(tenant: string, ids: string[]): Promise<Memory[]> {
    return this.guard('get', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (ids.length === 0) return [];
      const cached = this.cachedMemories(tenant, ids);
      const missing = cached === null || cached.size === 0 ? ids : ids.filter((id) => !cached.has(id));
      const toMemories = (rows: SelectedMemory[]): Memory[] => {
        const read = rows.map((row) => this.dialect.toMemory(row));
        if (read.length > 0) this.memoriesRead(tenant, read);
        if (cached !== null && cached.size > 0) for (const memory of read) cached.set(memory.id, memory);
        return inRequestedOrder(ids, cached === null || cached.size === 0 ? read : cached, (memory) => memory);
      };
      if (missing.length === 0) return toMemories([]);
      const rows = this.select<SelectedMemory>(
        'get',
        (p) => `SELECT ${MEMORY_SELECT} FROM ${this.dialect.table} m WHERE ${this.byIds(tenant, missing, p)}`,
      );
      return andThen(rows, toMemories);
    });
  }

  getTexts(tenant: string, ids: string[], options?: TextOptions): Promise<MemoryText[]> {
    return this.guard('getTexts', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (ids.length === 0) return [];
      const context = options?.context === true;
      const cached = this.cachedTexts(tenant, ids, { context, analyzer: options?.analyzer });
      const missing = cached === null || cached.size === 0 ? ids : ids.filter((id) => !cached.has(id));
      const known = cached === null ? [] : [...cached.values()];
      if (missing.length === 0) return known;
      const columns = context
        ? ', m.background AS background, m.stated_at AS stated_at, m.sources AS sources, m.metadata AS metadata'
        : '';
      const rows = this.select<MemoryText & Partial<ContextColumns>>(
        'getTexts',
        (p) =>
          `SELECT m.id AS id, m.text AS text, m.updated_at AS "updatedAt", m.type AS type${columns} FROM ${this.dialect.table} m WHERE ${this.byIds(tenant, missing, p)}`,
      );
      const texts = context
        ? andThen(rows, (read) => read.map((r) => textWithContext(r as MemoryText & ContextColumns)))
        : rows;
      return known.length === 0 ? texts : andThen(texts, (read) => [...known, ...read]);
    });
  }

  getVectors(tenant: string, ids: string[]): Promise<Map<string, Float32Array>> {
    return this.guard('getVectors', () => this.vectorsOf('getVectors', tenant, ids));
  }

  storedCosines(tenant: string, ids: string[], queries: readonly Float32Array[]): Promise<Map<string, number>> {
    return this.guard('storedCosines', () => {
      assertTenant(tenant);
      assertIds(ids);
      assertQueryVectors(queries);
      const cached = ids.length === 0 ? null : this.cachedCosines(tenant, ids, queries);
      const missing = cached === null ? ids : ids.filter((id) => !cached.has(id));
      if (cached !== null && missing.length === 0) return cached;
      return andThen(this.vectorsOf('storedCosines', tenant, missing), (read) => {
        const out = cached ?? new Map<string, number>();
        const found = [...read.keys()];
        const cosines = maxCosines(
          found.map((id) => read.get(id) as Float32Array),
          queries,
        );
        found.forEach((id, j) => out.set(id, cosines[j] as number));
        return out;
      });
    });
  }

  /** The stored vectors of these ids (copies). */
  private vectorsOf(name: string, tenant: string, ids: string[]): Maybe<Map<string, Float32Array>> {
    assertTenant(tenant);
    assertIds(ids);
    if (ids.length === 0) return new Map<string, Float32Array>();
    const cached = this.cachedVectors(tenant, ids);
    const missing = cached === null || cached.size === 0 ? ids : ids.filter((id) => !cached.has(id));
    if (cached !== null && missing.length === 0) return cached;
    const rows = this.select<VectorRow>(
      name,
      (p) => `SELECT m.id AS id, m.vector AS vector, m.embed_dim AS embed_dim FROM ${this.dialect.table} m
        WHERE ${this.byIds(tenant, missing, p)} AND m.vector IS NOT NULL`,
    );
    return andThen(rows, (read) => {
      const decoded = decodeVectorRows(read);
      if (cached !== null) for (const [id, vector] of decoded) cached.set(id, vector);
      return cached ?? decoded;
    });
  }

  update(
    tenant: string,
    id: string,
    patch: StorePatch,
    vector?: StoreVector,
    context?: WriteContext,
  ): Promise<Memory | null> {
    return this.guard('update', () => {
      assertUpdate(tenant, id, patch, vector);
      const change = { tenant, id, patch, vector };
      // Not idempotent any more: a retried commit would append the history event twice.
      const write = (): Maybe<SelectedMemory | null> =>
        this.runner.transaction('update', (sql) => updateWithHistory(this.engine, sql, change, context));
      return andThen(andThen(this.prepareVectors(vector ? [vector.embedding] : []), write), (row) => {
        if (row === null) return null;
        this.afterWrite('update', 1);
        return this.dialect.toMemory(row);
      });
    });
  }

  delete(tenant: string, ids: string[], context?: WriteContext): Promise<number> {
    return this.guard('delete', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (ids.length === 0) return 0;
      return andThen(
        this.runner.transaction('delete', (sql) => deleteWithHistory(this.engine, sql, tenant, unique(ids), context)),
        (n) => {
          if (n > 0) this.afterWrite('delete', n);
          return n;
        },
      );
    });
  }

  list(filter: MemoryFilter, options?: ListOptions): Promise<Page<Memory>> {
    return this.guard('list', () => {
      assertFilter(filter);
      const plan = planList(options);
      const rows = this.select<SelectedMemory>(
        'list',
        (p) =>
          `SELECT ${MEMORY_SELECT} FROM ${this.dialect.table} m WHERE ${filterWhere(filter, this.dialect, p)}${pageSql(plan, this.dialect, p)}`,
      );
      return andThen(rows, (found) => pageOf(plan, found, (row) => this.dialect.toMemory(row)));
    });
  }

  newestIds(filter: MemoryFilter, limit: number, options?: NewestIdsOptions): Promise<NewestId[]> {
    return this.guard('newestIds', () => {
      assertFilter(filter);
      const analyzer = options?.analyzer;
      if (analyzer !== undefined && typeof analyzer !== 'string')
        throw new EngramError('INVALID_INPUT', 'options.analyzer must be a string');
      const vectors = options?.storedCosinesWith;
      if (vectors !== undefined) assertQueryVectors(vectors, 'options.storedCosinesWith');
      const space = options?.space;
      assertSpace(space);
      if (space !== undefined) for (const vector of vectors ?? []) assertVector(vector, space);
      // Fresh objects each time: a remembered read is shared.
      const ids = (rows: readonly NewestRow[]): NewestId[] => {
        const newest = rows.slice(0, limit);
        const out: NewestId[] =
          analyzer === undefined
            ? newest.map((r) => ({ id: r.id, updatedAt: r.updatedAt }))
            : this.newestWithDocuments(filter.scope.tenant, newest, analyzer);
        if (vectors !== undefined && out.length > 0) this.withStoredCosines(filter.scope.tenant, newest, out, vectors);
        return out;
      };
      const ready = space !== undefined ? this.prepareNewest(filter.scope, space, analyzer) : undefined;
      return andThen(ready, () => this.newestWithin(filter, limit, ids));
    });
  }

  /** The newest rows of `filter` as `ids` makes them, valid at `filter.validAt` when it is set. */
  private newestWithin(
    filter: MemoryFilter,
    limit: number,
    ids: (rows: readonly NewestRow[]) => NewestId[],
  ): Maybe<NewestId[]> {
    const { validAt, ...anyTime } = filter;
    if (validAt === undefined || !this.remembersReads) return andThen(this.newestRows(filter, limit), ids);
    // Callers pass "now" as `validAt`, a new instant each time: the newest rows regardless of
    // it are the same read every time (remembered while nothing changes) and usually decide it.
    const at = canonicalInstant(validAt);
    return andThen(this.newestRows(anyTime, limit), (newest) => {
      const decided = validAmongNewest(newest, limit, at);
      return decided !== null ? ids(decided) : andThen(this.newestRows(filter, limit), ids);
    });
  }

  /**
   * The newest rows as fresh `{ id, updatedAt }`, each with its document where the backend holds
   * `analyzer`'s. A remembered read hands out the same row objects while nothing changes, and a
   * row's version has one document: found documents are kept per row object, so a repeated read
   * (the searcher's working path, every search) looks none up again.
   */
  private newestWithDocuments(tenant: string, rows: readonly NewestRow[], analyzer: string): NewestId[] {
    let known = this.newestDocuments.get(analyzer);
    if (known === undefined) this.newestDocuments.set(analyzer, (known = new WeakMap()));
    const documents = rows.map((r) => known.get(r));
    const missing = rows.filter((_, i) => documents[i] === undefined).map((r) => r.id);
    const read = missing.length > 0 ? this.cachedDocuments(tenant, missing, analyzer) : null;
    return rows.map((r, i) => {
      let document = documents[i];
      if (document === undefined && read !== null) {
        document = read.get(r.id);
        if (document !== undefined) known.set(r, document);
      }
      return document === undefined
        ? { id: r.id, updatedAt: r.updatedAt }
        : { id: r.id, updatedAt: r.updatedAt, document };
    });
  }

  /** Gives each of `out` (made from `rows`, in order) the `storedCosine` the backend can tell from memory. */
  private withStoredCosines(
    tenant: string,
    rows: readonly NewestRow[],
    out: NewestId[],
    vectors: readonly Float32Array[],
  ): void {
    const cosines = this.cachedRowCosines(tenant, rows, vectors);
    if (cosines === null) return;
    out.forEach((row, i) => {
      const cosine = cosines[i];
      if (cosine !== undefined) row.storedCosine = cosine;
    });
  }

  private newestRows(filter: MemoryFilter, limit: number): Maybe<NewestRow[]> {
    const plan = planList({ limit, order: 'updatedAt', direction: 'desc' });
    return this.unchangedRead('newestIds', [filter, limit], () =>
      this.select<NewestRow>(
        'newestIds',
        (p) =>
          `SELECT m.id AS id${this.dialect.rowKey === undefined ? '' : `, ${this.dialect.rowKey} AS pk`}, m.updated_at AS "updatedAt", ${VALID_FROM_SQL} AS "validFrom", m.valid_to AS "validTo" FROM ${this.dialect.table} m WHERE ${filterWhere(filter, this.dialect, p)}${pageSql(plan, this.dialect, p)}`,
      ),
    );
  }

  count(filter: MemoryFilter): Promise<number> {
    return this.guard('count', () => {
      assertFilter(filter);
      const rows = this.select<{ n: number }>(
        'count',
        (p) =>
          `SELECT ${this.dialect.countAll} AS n FROM ${this.dialect.table} m WHERE ${filterWhere(filter, this.dialect, p)}`,
      );
      return andThen(rows, (found) => found[0]?.n ?? 0);
    });
  }

  stats(filter: MemoryFilter): Promise<ScopeStats> {
    return this.guard('stats', () => {
      assertFilter(filter);
      const rows = this.select<StatsGroup>('stats', (p) =>
        statsSql(this.dialect.table, this.dialect.countAll, filterWhere(filter, this.dialect, p)),
      );
      return andThen(rows, scopeStats);
    });
  }

  denseSearch(query: DenseQuery): Promise<DenseCandidate[]> {
    return this.guard('denseSearch', () => {
      assertDenseQuery(query);
      // Like every backend: a zero query vector is similar to nothing.
      const unit = unitVector(query.vector);
      if (unit === null || unit.every((v) => v === 0)) return [];
      return this.denseCandidates(query, unit);
    });
  }

  lexicalSearch(query: LexicalQuery): Promise<LexicalCandidate[]> {
    return this.guard('lexicalSearch', () => {
      assertLexicalQuery(query);
      return this.lexicalCandidates(query);
    });
  }

  recordUsage(tenant: string, ids: string[], at: string): Promise<void> {
    return this.guard('recordUsage', () => {
      assertTenant(tenant);
      assertIds(ids);
      assertTimestampArgument(at, 'at');
      if (ids.length === 0) return undefined;
      const usage = unique(ids).map((id) => ({ id, count: 1, lastUsedAt: at }));
      return this.runner.transaction('recordUsage', (sql) => this.incrementUsage(sql, tenant, usage));
    });
  }

  addUsage(tenant: string, usage: UsageEntry[]): Promise<void> {
    return this.guard('addUsage', () => {
      assertTenant(tenant);
      assertUsageEntries(usage);
      const merged = mergeUsage(usage);
      if (merged.length === 0) return undefined;
      return this.runner.transaction('addUsage', (sql) => this.incrementUsage(sql, tenant, merged));
    });
  }

  setUsage(tenant: string, usage: UsageEntry[]): Promise<void> {
    return this.guard('setUsage', () => {
      assertTenant(tenant);
      assertUsageEntries(usage);
      if (usage.length === 0) return undefined;
      return this.runner.transaction('setUsage', (sql) => this.writeUsage(sql, tenant, usage), { idempotent: true });
    });
  }

  /** Formation's storage over the same tables and transactions (episodes, history, queue, windows). */
  get formation(): FormationStore {
    this.formationStore ??= new SqlFormationStore(this.engine);
    return this.formationStore;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return this.settle('close', () => this.closeConnection());
  }

  // ------------------------------------------------------------ shared helpers

  /** What the engine's parts built on the memories table use of this backend. */
  protected get engine(): SqlEngine {
    return {
      kind: this.kind,
      dialect: this.dialect,
      runner: this.runner,
      guard: (operation, work) => this.guard(operation, work),
      insertRows: (sql, records) => this.insertRows(sql, records),
      updateRow: (sql, change) => this.updateRow(sql, change),
      deleteRows: (sql, tenant, ids) => this.deleteRows(sql, tenant, ids),
      prepareVectors: (spaces) => this.prepareVectors(spaces),
      afterWrite: (kind, rows) => this.afterWrite(kind, rows),
      newId: randomUUID,
      now: () => new Date().toISOString(),
    };
  }

  /** Throws STORE_CLOSED once {@link close} was called. */
  protected assertOpen(): void {
    if (this.closed) throw new EngramError('STORE_CLOSED', `the ${this.kind} store is closed`);
  }

  /** Runs a call on an open store; every failure comes out as an EngramError with a stable code. */
  protected guard<T>(operation: string, work: () => Maybe<T>): Promise<T> {
    return this.settle(operation, () => {
      this.assertOpen();
      return work();
    });
  }

  private settle<T>(operation: string, work: () => Maybe<T>): Promise<T> {
    try {
      const out = work();
      if (!(out instanceof Promise)) return Promise.resolve(out);
      return out.catch((error: unknown) => Promise.reject(this.dialect.toEngramError(error, operation)));
    } catch (error) {
      return Promise.reject(this.dialect.toEngramError(error, operation));
    }
  }

  /** Rows of one SELECT, built with fresh parameters. */
  protected select<R>(operation: string, build: (params: SqlParams) => string): Maybe<R[]> {
    const params = this.dialect.params();
    const sql = build(params);
    return this.runner.read(operation, (q) => q.all<R>(sql, params.values));
  }

  /** `m.tenant = … AND m.id` in the (distinct) ids. */
  protected byIds(tenant: string, ids: readonly string[], params: SqlParams): string {
    return `m.tenant = ${params.add(tenant)} AND ${this.dialect.anyOf('m.id', unique(ids), params)}`;
  }
}
