import Database from 'better-sqlite3';
import { EngramError } from '../../model/errors.js';
import type { EmbeddingInfo, Memory, MemoryPatch } from '../../model/memory.js';
import type { MemoryStatus, MemoryType } from '../../model/memory-type.js';
import { decodeListCursor, encodeListCursor, type ListDirection, type ListOrder } from '../list-cursor.js';
import type { DenseCandidate, DenseGroupQuery, DenseQuery, LexicalCandidate, LexicalGroupQuery, LexicalQuery, MemoryRecord, MemoryStore, MemoryText, UsageEntry } from '../memory-store.js';
import type { ListOptions, MemoryFilter, Page, ScopeStats } from '../../model/memory-filter.js';
import {
  assertFilter,
  assertIds,
  assertLimit,
  assertMemoryFields,
  assertRecord,
  assertTenant,
  assertSpace,
  assertUsageEntries,
  assertVector,
} from '../record-validation.js';
import { decodeVector, encodeVector } from '../vector-codec.js';
import { filterPredicate, filterSql, withSpace } from './filter-sql.js';
import { rankCachedLexical, rankCachedLexicalGroups, type TermPostings } from './cached-lexical.js';
import { ftsDocument, ftsTerms, type FtsTerm } from './fts-text.js';
import { termKey } from './lexical-index.js';
import { planLexicalTerms, type LexicalPlanOptions } from './lexical-plan.js';
import { applySqliteMigrations } from './migrations.js';
import { MEMORY_COLUMNS, rowToMemory, type MemoryRow } from './row-mapper.js';
import { toEngramError } from './sqlite-errors.js';
import { ALL_USERS, VectorCache } from './vector-cache.js';
import { writeNormalized, type SlotFilter, type SlotMeta } from './vector-partition.js';

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
  /** Keep per-partition vectors in memory for fast exact dense search. @default true */
  vectorCache?: boolean | undefined;
  /** Upper bound on cached vector bytes before least recently used partitions are dropped. @default 536870912 (512 MiB) */
  vectorCacheMaxBytes?: number | undefined;
  /**
   * Partitions with at least this many vectors first scan an int8 copy (4x less memory traffic)
   * and re-score the best `max(2 * (limit + 8), limit + 72)` candidates exactly from float32. `Infinity` keeps every
   * scan in float32. @default 8192
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

const LIST_MAX = 1000;
const SEARCH_MAX = 10_000;

const ORDER_COLUMNS: Record<ListOrder, string> = {
  createdAt: 'm.created_at',
  updatedAt: 'm.updated_at',
  statedAt: "coalesce(m.stated_at, '')",
};

const ORDER_FIELDS: Record<ListOrder, 'createdAt' | 'updatedAt' | 'statedAt'> = {
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  statedAt: 'statedAt',
};

type StorePatch = MemoryPatch & { updatedAt: string; statedAt?: string | null };

/**
 * The SQLite backend of {@link MemoryStore} (better-sqlite3, WAL, FTS5, float32 vector BLOBs,
 * an in-memory exact vector cache kept in step across processes).
 */
export class SqliteStore implements MemoryStore {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  /** Prepared statements by SQL text: preparing costs more than running most of them. */
  private readonly statements = new Map<string, Database.Statement>();
  private readonly options: Required<Omit<SqliteStoreOptions, 'path'>> & { path: string };
  private closed = false;
  /** Corpus statistics for lexical planning, valid until the next write (ours or another process's). */
  private corpus: { version: number; dirty: boolean; total: number | null; df: Map<string, number> } = {
    version: -1,
    dirty: true,
    total: null,
    df: new Map(),
  };
  private writesSincePrune = 0;

  constructor(options: SqliteStoreOptions) {
    this.options = {
      path: options.path,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      migrate: options.migrate ?? true,
      synchronous: options.synchronous ?? 'FULL',
      vectorCache: options.vectorCache ?? true,
      vectorCacheMaxBytes: options.vectorCacheMaxBytes ?? 512 * 1024 * 1024,
      searchThreads: options.searchThreads ?? 1,
      vectorQuantizeAbove: options.vectorQuantizeAbove ?? 8192,
      lexicalCommonShare: options.lexicalCommonShare ?? 0.2,
      lexicalRankAllBelow: options.lexicalRankAllBelow ?? 4_000,
      lexicalScanCap: options.lexicalScanCap ?? 2000,
      changeLogRetention: options.changeLogRetention ?? 200_000,
      clock: options.clock ?? (() => new Date()),
    };
    try {
      this.db = new Database(options.path, { timeout: this.options.busyTimeoutMs });
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(this.options.busyTimeoutMs))}`);
      if (options.path !== ':memory:' && options.path !== '') this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${this.options.synchronous}`);
      this.db.pragma('foreign_keys = ON');
      if (this.options.migrate) applySqliteMigrations(this.db, undefined, this.options.clock);
    } catch (error) {
      throw toEngramError(error, 'open');
    }
  }

  /** Created on the first dense search (the schema must exist by then). */
  private lazyCache: VectorCache | null = null;

  /** The underlying connection, for diagnostics and tests. Do not write through it. */
  /** A cached prepared statement (filters yield a bounded set of SQL shapes). */
  private prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      if (this.statements.size >= 512) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement as unknown as Database.Statement<P, R>;
  }

  get database(): Database.Database {
    this.assertOpen();
    return this.db;
  }

  /** Rows skipped by the vector cache because their blob was corrupt. */
  get corruptVectorsSkipped(): number {
    return this.lazyCache?.corruptSkipped ?? 0;
  }

  /** Size of the in-memory vector cache and its lexical indexes (observability). */
  vectorCacheStats(): { partitions: number; lexicalIndexes: number; bytes: number; corruptSkipped: number } {
    const cache = this.lazyCache;
    return {
      partitions: cache?.partitionCount ?? 0,
      lexicalIndexes: cache?.lexicalIndexCount ?? 0,
      bytes: cache?.cachedBytes ?? 0,
      corruptSkipped: cache?.corruptSkipped ?? 0,
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new EngramError('STORE_CLOSED', 'the store is closed');
  }

  private run<T>(operation: string, fn: () => T): Promise<T> {
    try {
      this.assertOpen();
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(toEngramError(error, operation));
    }
  }

  private vectorCache(): VectorCache | null {
    if (this.lazyCache === null && this.options.vectorCache) {
      this.lazyCache = new VectorCache(this.db, {
        maxBytes: this.options.vectorCacheMaxBytes,
        reloadAbove: 5000,
        quantizeAbove: this.options.vectorQuantizeAbove,
      });
    }
    return this.lazyCache;
  }

  private afterWrite(): void {
    this.lazyCache?.markDirty();
    this.corpus.dirty = true;
  }

  migrate(): Promise<void> {
    return this.run('migrate', () => {
      applySqliteMigrations(this.db, undefined, this.options.clock);
    });
  }

  /**
   * Loads a vector partition and its lexical index into the cache ahead of the first query
   * (which otherwise pays for reading every vector and text of the partition once). Returns the
   * number of cached vectors.
   */
  preloadVectors(key: VectorPartitionKey): Promise<number> {
    return this.run('preloadVectors', () => {
      assertTenant(key.tenant);
      const cache = this.vectorCache();
      if (cache === null) return 0;
      return cache.lexical(key.tenant, key.model, key.dim, key.user ?? ALL_USERS).partition.size;
    });
  }

  insert(records: MemoryRecord[]): Promise<void> {
    return this.run('insert', () => {
      if (!Array.isArray(records)) throw new EngramError('INVALID_INPUT', 'records must be an array');
      for (const record of records) assertRecord(record);
      if (records.length === 0) return;
      const insertRow = this.prepare(`INSERT INTO memories (
        tenant, id, user_id, agent_id, session_id, collection, type, key, tags, level, summary, background, sources,
        metadata, text, stated_at, created_at, updated_at, status, use_count, last_used_at, embed_model, embed_dim, vector
      ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, ?, ?)`);
      const insertTag = this.prepare('INSERT OR IGNORE INTO memory_tags (pk, tag) VALUES (?, ?)');
      const insertFts = this.prepare('INSERT INTO memories_fts (rowid, body, uni) VALUES (?, ?, ?)');
      const logChange = this.prepare('INSERT INTO memory_changes (tenant, id) VALUES (?, ?)');
      const tx = this.db.transaction(() => {
        for (const r of records) {
          const info = insertRow.run(
            r.scope.tenant,
            r.id,
            r.scope.user ?? null,
            r.scope.agent ?? null,
            r.scope.session ?? null,
            r.scope.collection ?? null,
            r.type,
            r.key ?? null,
            JSON.stringify(r.tags),
            r.level ?? null,
            r.summary ?? null,
            r.background ?? null,
            JSON.stringify(r.sources),
            JSON.stringify(r.metadata),
            r.text,
            r.statedAt ?? null,
            r.createdAt,
            r.updatedAt,
            r.status,
            r.vector ? (r.embedding as EmbeddingInfo).model : null,
            r.vector ? (r.embedding as EmbeddingInfo).dim : null,
            r.vector ? encodeVector(r.vector) : null,
          );
          const pk = Number(info.lastInsertRowid);
          for (const tag of r.tags) insertTag.run(pk, tag);
          const doc = ftsDocument(r.text);
          insertFts.run(pk, doc.body, doc.uni);
          logChange.run(r.scope.tenant, r.id);
        }
      });
      tx.immediate();
      this.afterWrite();
      this.maybePruneChanges(records.length);
    });
  }

  private maybePruneChanges(writes: number): void {
    this.writesSincePrune += writes;
    if (this.writesSincePrune < 10_000) return;
    this.writesSincePrune = 0;
    try {
      this.prepare('DELETE FROM memory_changes WHERE seq <= (SELECT max(seq) FROM memory_changes) - ?')
        .run(this.options.changeLogRetention);
    } catch {
      // Pruning is housekeeping; a busy database simply prunes next time.
    }
  }

  get(tenant: string, ids: string[]): Promise<Memory[]> {
    return this.run('get', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (ids.length === 0) return [];
      const rows = this.prepare<[string, string], MemoryRow>(
          `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.tenant = ? AND m.id IN (SELECT value FROM json_each(?))`,
        )
        .all(tenant, JSON.stringify(ids));
      const byId = new Map(rows.map((row) => [row.id, row]));
      const out: Memory[] = [];
      const seen = new Set<string>();
      for (const id of ids) {
        const row = byId.get(id);
        if (row === undefined || seen.has(id)) continue;
        seen.add(id);
        out.push(rowToMemory(row));
      }
      return out;
    });
  }

  getTexts(tenant: string, ids: string[]): Promise<MemoryText[]> {
    return this.run('getTexts', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (ids.length === 0) return [];
      // Rows a lexical index holds are answered from memory; the rest are read.
      const cached = this.lazyCache?.texts(tenant, ids) ?? new Map<string, MemoryText>();
      const missing = cached.size === 0 ? ids : ids.filter((id) => !cached.has(id));
      if (missing.length === 0) return [...cached.values()];
      const read = this.prepare<[string, string], MemoryText>(
          `SELECT m.id AS id, m.text AS text, m.updated_at AS updatedAt FROM memories m
           WHERE m.tenant = ? AND m.id IN (SELECT value FROM json_each(?))`,
        )
        .all(tenant, JSON.stringify(missing));
      return [...cached.values(), ...read];
    });
  }

  getVectors(tenant: string, ids: string[]): Promise<Map<string, Float32Array>> {
    return this.run('getVectors', () => {
      assertTenant(tenant);
      assertIds(ids);
      const out = new Map<string, Float32Array>();
      if (ids.length === 0) return out;
      const rows = this.prepare<[string, string], { id: string; embed_dim: number | null; vector: Buffer }>(
          'SELECT id, embed_dim, vector FROM memories WHERE tenant = ? AND id IN (SELECT value FROM json_each(?)) AND vector IS NOT NULL',
        )
        .all(tenant, JSON.stringify(ids));
      const corrupt: string[] = [];
      for (const row of rows) {
        try {
          out.set(row.id, decodeVector(row.vector, row.embed_dim, row.id));
        } catch {
          corrupt.push(row.id);
        }
      }
      if (corrupt.length > 0) {
        throw new EngramError('CORRUPT_VECTOR', `stored vector of ${corrupt.join(', ')} has the wrong byte length`, {
          details: { ids: corrupt },
        });
      }
      return out;
    });
  }

  update(
    tenant: string,
    id: string,
    patch: StorePatch,
    vector?: { vector: Float32Array; embedding: EmbeddingInfo } | null,
  ): Promise<Memory | null> {
    return this.run('update', () => {
      assertTenant(tenant);
      if (typeof id !== 'string') throw new EngramError('INVALID_INPUT', 'id must be a string');
      if (patch === null || typeof patch !== 'object')
        throw new EngramError('INVALID_INPUT', 'patch must be an object');
      if (typeof patch.updatedAt !== 'string' || Number.isNaN(Date.parse(patch.updatedAt))) {
        throw new EngramError('INVALID_INPUT', 'patch.updatedAt must be an ISO-8601 timestamp');
      }
      assertMemoryFields(patch as Partial<MemoryRecord>, id);
      if (vector !== undefined && vector !== null) assertVector(vector.vector, vector.embedding, id);

      const sets: string[] = ['updated_at = ?'];
      const params: unknown[] = [patch.updatedAt];
      const simple: Array<[keyof StorePatch, string]> = [
        ['text', 'text'],
        ['type', 'type'],
        ['key', 'key'],
        ['level', 'level'],
        ['summary', 'summary'],
        ['background', 'background'],
        ['statedAt', 'stated_at'],
        ['status', 'status'],
      ];
      for (const [field, column] of simple) {
        if (patch[field] !== undefined) {
          sets.push(`${column} = ?`);
          params.push(patch[field] ?? null);
        }
      }
      for (const [field, column] of [
        ['tags', 'tags'],
        ['sources', 'sources'],
        ['metadata', 'metadata'],
      ] as const) {
        if (patch[field] !== undefined) {
          sets.push(`${column} = ?`);
          params.push(JSON.stringify(patch[field]));
        }
      }
      if (vector === null) {
        sets.push('embed_model = NULL', 'embed_dim = NULL', 'vector = NULL');
      } else if (vector !== undefined) {
        sets.push('embed_model = ?', 'embed_dim = ?', 'vector = ?');
        params.push(vector.embedding.model, vector.embedding.dim, encodeVector(vector.vector));
      }
      const tx = this.db.transaction((): MemoryRow | null => {
        const found = this.prepare<[string, string], { pk: number }>('SELECT pk FROM memories WHERE tenant = ? AND id = ?')
          .get(tenant, id);
        if (found === undefined) return null;
        this.prepare(`UPDATE memories SET ${sets.join(', ')} WHERE pk = ?`).run(...params, found.pk);
        if (patch.tags !== undefined) {
          this.prepare('DELETE FROM memory_tags WHERE pk = ?').run(found.pk);
          const insertTag = this.prepare('INSERT OR IGNORE INTO memory_tags (pk, tag) VALUES (?, ?)');
          for (const tag of patch.tags) insertTag.run(found.pk, tag);
        }
        if (patch.text !== undefined) {
          const doc = ftsDocument(patch.text);
          this.prepare('DELETE FROM memories_fts WHERE rowid = ?').run(found.pk);
          this.prepare('INSERT INTO memories_fts (rowid, body, uni) VALUES (?, ?, ?)')
            .run(found.pk, doc.body, doc.uni);
        }
        this.prepare('INSERT INTO memory_changes (tenant, id) VALUES (?, ?)').run(tenant, id);
        return (
          this.prepare<[number], MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.pk = ?`)
            .get(found.pk) ?? null
        );
      });
      const row = tx.immediate();
      if (row === null) return null;
      this.afterWrite();
      return rowToMemory(row);
    });
  }

  delete(tenant: string, ids: string[]): Promise<number> {
    return this.run('delete', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (ids.length === 0) return 0;
      const tx = this.db.transaction(() => {
        const removed = this.prepare<[string, string], { pk: number; id: string }>(
            'DELETE FROM memories WHERE tenant = ? AND id IN (SELECT value FROM json_each(?)) RETURNING pk, id',
          )
          .all(tenant, JSON.stringify(ids));
        const deleteFts = this.prepare('DELETE FROM memories_fts WHERE rowid = ?');
        const logChange = this.prepare('INSERT INTO memory_changes (tenant, id) VALUES (?, ?)');
        for (const row of removed) {
          deleteFts.run(row.pk);
          logChange.run(tenant, row.id);
        }
        return removed.length;
      });
      const n = tx.immediate();
      if (n > 0) this.afterWrite();
      return n;
    });
  }

  list(filter: MemoryFilter, options: ListOptions = {}): Promise<Page<Memory>> {
    return this.run('list', () => {
      assertFilter(filter);
      const limit = options.limit ?? 50;
      assertLimit(limit, LIST_MAX);
      const order: ListOrder = options.order ?? 'createdAt';
      const direction: ListDirection = options.direction ?? 'asc';
      if (!(order in ORDER_COLUMNS)) throw new EngramError('INVALID_INPUT', `unknown order ${String(order)}`);
      if (direction !== 'asc' && direction !== 'desc')
        throw new EngramError('INVALID_INPUT', `unknown direction ${String(direction)}`);
      const column = ORDER_COLUMNS[order];
      const where = filterSql(filter);
      const params = [...where.params];
      let keyset = '';
      if (options.cursor !== undefined) {
        const cursor = decodeListCursor(options.cursor, order, direction);
        keyset = ` AND (${column}, m.id) ${direction === 'asc' ? '>' : '<'} (?, ?)`;
        params.push(cursor.value ?? '', cursor.id);
      }
      const dir = direction === 'asc' ? 'ASC' : 'DESC';
      const rows = this.prepare<unknown[], MemoryRow>(
          `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE ${where.sql}${keyset} ORDER BY ${column} ${dir}, m.id ${dir} LIMIT ?`,
        )
        .all(...params, limit + 1);
      const items = rows.slice(0, limit).map(rowToMemory);
      const last = items[items.length - 1];
      const nextCursor =
        rows.length > limit && last !== undefined
          ? encodeListCursor({ order, direction, value: last[ORDER_FIELDS[order]], id: last.id })
          : null;
      return { items, nextCursor };
    });
  }

  count(filter: MemoryFilter): Promise<number> {
    return this.run('count', () => {
      assertFilter(filter);
      const where = filterSql(filter);
      return (
        this.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM memories m WHERE ${where.sql}`)
          .get(...where.params)?.n ?? 0
      );
    });
  }

  stats(filter: MemoryFilter): Promise<ScopeStats> {
    return this.run('stats', () => {
      assertFilter(filter);
      const where = filterSql(filter);
      const groups = this.prepare<unknown[], { type: MemoryType; status: MemoryStatus; n: number }>(
          `SELECT m.type AS type, m.status AS status, count(*) AS n FROM memories m WHERE ${where.sql} GROUP BY m.type, m.status`,
        )
        .all(...where.params);
      const models = this.prepare<unknown[], { model: string; dim: number; n: number }>(
          `SELECT m.embed_model AS model, m.embed_dim AS dim, count(*) AS n FROM memories m
           WHERE ${where.sql} AND m.embed_model IS NOT NULL GROUP BY m.embed_model, m.embed_dim ORDER BY m.embed_model, m.embed_dim`,
        )
        .all(...where.params);
      const stats: ScopeStats = { total: 0, byType: {}, byStatus: {}, models: [] };
      for (const g of groups) {
        stats.total += g.n;
        stats.byType[g.type] = (stats.byType[g.type] ?? 0) + g.n;
        stats.byStatus[g.status] = (stats.byStatus[g.status] ?? 0) + g.n;
      }
      stats.models = models.map((m) => ({ model: m.model, dim: m.dim, count: m.n }));
      return stats;
    });
  }

  denseSearch(query: DenseQuery): Promise<DenseCandidate[]> {
    return this.run('denseSearch', () => {
      const unit = this.denseUnit(query, () => assertLimit(query.limit, SEARCH_MAX));
      return unit === null ? [] : this.denseRows(query.filter, query.model, unit, query.limit);
    });
  }

  /** One scan of the vector cache for every group (see {@link VectorPartition.searchGroups}). */
  denseSearchGroups(query: DenseGroupQuery): Promise<DenseCandidate[][]> {
    return this.run('denseSearchGroups', () => {
      const unit = this.denseUnit(query, () => {
        if (!Array.isArray(query.groups)) throw new EngramError('INVALID_INPUT', 'query.groups must be an array');
        for (const g of query.groups) {
          assertFilter({ ...query.filter, types: g.types });
          assertLimit(g.limit, SEARCH_MAX);
        }
      });
      const cache = this.vectorCache();
      if (unit === null) return query.groups.map(() => []);
      const filters = query.groups.map((g) => ({ ...query.filter, types: g.types }));
      if (cache === null || query.filter.ids !== undefined) {
        return filters.map((f, i) => this.denseRows(f, query.model, unit, query.groups[i]?.limit ?? 0));
      }
      const { tenant, user } = query.filter.scope;
      const partition = cache.partition(tenant, query.model, unit.length, user ?? ALL_USERS);
      const groups = filters.map((f, i) => ({ limit: query.groups[i]?.limit ?? 0, filter: filterPredicate(f, partition.statuses()) }));
      return partition.searchGroups(unit, groups, this.options.searchThreads);
    });
  }

  /** Checks a dense query (`checkLimits` after its filter); its vector at unit length, or null for a zero vector. */
  private denseUnit(query: Omit<DenseQuery, 'limit'>, checkLimits: () => void): Float32Array | null {
    if (query === null || typeof query !== 'object') throw new EngramError('INVALID_INPUT', 'query must be an object');
    assertFilter(query.filter);
    checkLimits();
    if (typeof query.model !== 'string' || query.model === '')
      throw new EngramError('INVALID_INPUT', 'query.model is required');
    assertVector(query.vector, { model: query.model, dim: query.vector?.length ?? 0 });
    const unit = new Float32Array(query.vector.length);
    writeNormalized(unit, 0, query.vector);
    return unit.every((v) => v === 0) ? null : unit;
  }

  private denseRows(filter: MemoryFilter, model: string, unit: Float32Array, limit: number): DenseCandidate[] {
    const cache = this.vectorCache();
    if (cache === null) return this.denseScan(filter, model, unit, limit);
    const partition = cache.partition(filter.scope.tenant, model, unit.length, filter.scope.user ?? ALL_USERS);
    // A short id list is looked up slot by slot rather than tested against every cached row
    // (the rest of the filter is still tested on each).
    const { ids } = filter;
    if (ids !== undefined && ids.length <= partition.size / 8) {
      const rest = filterPredicate({ ...filter, ids: undefined }, partition.statuses());
      return partition.searchIds(unit, ids, limit, rest);
    }
    return partition.search(unit, limit, filterPredicate(filter, partition.statuses()), this.options.searchThreads);
  }

  /** The reference design: read every matching blob per query and score it in JS. */
  private denseScan(filter: MemoryFilter, model: string, unit: Float32Array, limit: number): DenseCandidate[] {
    const where = filterSql(filter);
    const rows = this.prepare<unknown[], { id: string; vector: Buffer }>(
        `SELECT m.id AS id, m.vector AS vector FROM memories m WHERE ${where.sql} AND m.embed_model = ? AND m.embed_dim = ? AND m.vector IS NOT NULL`,
      )
      .iterate(...where.params, model, unit.length);
    const out: DenseCandidate[] = [];
    const scratch = new Float32Array(unit.length);
    for (const row of rows) {
      if (row.vector.byteLength !== unit.length * 4) continue;
      const v = decodeVector(row.vector, unit.length, row.id);
      writeNormalized(scratch, 0, v);
      let dot = 0;
      for (let i = 0; i < unit.length; i++) dot += (scratch[i] as number) * (unit[i] as number);
      out.push({ id: row.id, cosine: Number.isFinite(dot) ? Math.max(-1, Math.min(1, dot)) : 0 });
    }
    out.sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out.slice(0, limit);
  }

  private corpusStats(): { total: () => number; df: (token: string) => number } {
    const version = this.prepare<[], number>('PRAGMA data_version').pluck().get() as number;
    if (this.corpus.dirty || this.corpus.version !== version) {
      this.corpus = { version, dirty: false, total: null, df: new Map() };
    }
    const corpus = this.corpus;
    return {
      total: () =>
        (corpus.total ??= this.prepare<[], { n: number }>('SELECT count(*) AS n FROM memories').get()?.n ?? 0),
      df: (token) => {
        let value = corpus.df.get(token);
        if (value === undefined) {
          value =
            this.prepare<[string], { doc: number }>('SELECT doc FROM memories_fts_vocab WHERE term = ?').get(token)
              ?.doc ?? 0;
          if (corpus.df.size > 10_000) corpus.df.clear();
          corpus.df.set(token, value);
        }
        return value;
      },
    };
  }

  lexicalSearch(query: LexicalQuery): Promise<LexicalCandidate[]> {
    return this.run('lexicalSearch', () => {
      this.checkLexical(query, () => assertLimit(query.limit, SEARCH_MAX));
      return this.lexicalRows([query], query.space, query.terms)[0] ?? [];
    });
  }

  /** Every group from one pass over the terms' postings when answered from the vector cache. */
  lexicalSearchGroups(query: LexicalGroupQuery): Promise<LexicalCandidate[][]> {
    return this.run('lexicalSearchGroups', () => {
      this.checkLexical(query, () => {
        if (!Array.isArray(query.groups)) throw new EngramError('INVALID_INPUT', 'query.groups must be an array');
        for (const g of query.groups) {
          assertFilter({ ...query.filter, types: g.types });
          assertLimit(g.limit, SEARCH_MAX);
        }
      });
      const queries = query.groups.map((g) => ({ ...query, filter: { ...query.filter, types: g.types }, limit: g.limit }));
      return this.lexicalRows(queries, query.space, query.terms);
    });
  }

  private checkLexical(query: Omit<LexicalQuery, 'limit'>, checkLimits: () => void): void {
    if (query === null || typeof query !== 'object') throw new EngramError('INVALID_INPUT', 'query must be an object');
    assertFilter(query.filter);
    checkLimits();
    assertSpace(query.space);
    if (!Array.isArray(query.terms)) throw new EngramError('INVALID_INPUT', 'query.terms must be an array of strings');
  }

  /** Lexical queries of one scope, space and terms that differ in types and limits. */
  private lexicalRows(queries: LexicalQuery[], space: EmbeddingInfo | undefined, raw: string[]): LexicalCandidate[][] {
    const terms = ftsTerms(raw);
    if (terms.length === 0 || queries.length === 0) return queries.map(() => []);
    const cache = space === undefined ? null : this.vectorCache();
    if (cache !== null && space !== undefined) return this.cachedLexical(cache, queries, space, terms);
    return queries.map((q) => this.ftsLexical(q, terms));
  }

  private get planOptions(): LexicalPlanOptions {
    return { rankAllBelow: this.options.lexicalRankAllBelow, commonShare: this.options.lexicalCommonShare };
  }

  /**
   * The lexical channel answered from the vector cache: single-token terms from the partition's
   * in-memory inverted index, multi-token terms (phrases, CJK bigram runs) from FTS5's postings;
   * ranked by {@link rankCachedLexical} with the scope's own statistics. Common terms are planned
   * with the scope's document frequencies; on the bounded path each term contributes only its
   * newest `lexicalScanCap` in-scope matches.
   */
  private cachedLexical(
    cache: VectorCache,
    queries: LexicalQuery[],
    space: EmbeddingInfo,
    terms: FtsTerm[],
  ): LexicalCandidate[][] {
    const { scope } = (queries[0] as LexicalQuery).filter;
    const { partition, index } = cache.lexical(scope.tenant, space.model, space.dim, scope.user ?? ALL_USERS);
    const filters = queries.map((q) => filterPredicate(q.filter, partition.statuses()));
    const withDf = terms.map((t) => ({
      ...t,
      keys: t.tokens.map((token) => termKey(t.column, token)),
      df: t.tokens.length === 0 ? 0 : Math.min(...t.tokens.map((token) => index.storedCount(termKey(t.column, token)))),
    }));
    const { kept, rankAll } = planLexicalTerms(withDf, index.size, this.planOptions);
    const postingsOf = (limit: number, filter: SlotFilter | null): TermPostings[] => {
      const cap = rankAll ? Number.POSITIVE_INFINITY : Math.max(limit, this.options.lexicalScanCap);
      const accept = (doc: number): boolean => filter === null || filter.test(index.idOf(doc) ?? '', index.metaOf(doc));
      return kept.map((term): TermPostings => {
        if (term.keys.length === 1) {
          const read = index.postings(term.keys[0] as string, cap, rankAll ? undefined : accept);
          return rankAll ? read : { ...read, df: term.df };
        }
        // A phrase: FTS5 knows word positions, the in-memory index does not.
        const rows = rankAll
          ? this.prepare<[string], number>('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?').pluck().all(term.expression)
          : this.prepare<[string, number], number>(
                'SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?',
              )
              .pluck()
              .all(term.expression, cap);
        const docs: number[] = [];
        for (const pk of rows) {
          const doc = index.docOf(pk);
          if (doc !== undefined) docs.push(doc);
        }
        return { docs, tfs: docs.map(() => 1), df: rankAll ? undefined : term.df };
      });
    };
    // Ranking every match, the postings do not depend on the filter: read once for every query,
    // each row tested once against the queries' common filter and sorted into them by type.
    if (rankAll && queries.length <= 31) {
      const limits = queries.map((q) => q.limit);
      const terms = postingsOf(0, null);
      return rankCachedLexicalGroups({ index, limits, terms, accept: typeGroups(queries, partition.statuses()) });
    }
    return queries.map((q, i) => {
      const filter = filters[i] ?? null;
      return rankCachedLexical({ index, filter, terms: postingsOf(q.limit, filter), limit: q.limit });
    });
  }

  /** The lexical channel through FTS5 alone: bm25() over every match, or the bounded windows. */
  private ftsLexical(query: LexicalQuery, terms: FtsTerm[]): LexicalCandidate[] {
    const stats = this.corpusStats();
    const withDf = terms.map((t) => ({
      ...t,
      df: t.tokens.length === 0 ? 0 : Math.min(...t.tokens.map((token) => stats.df(token))),
    }));
    const { kept, rankAll } = planLexicalTerms(withDf, stats.total(), this.planOptions);
    const where = withSpace(filterSql(query.filter), query.space);
    if (rankAll) {
      const match = kept.map((t) => `(${t.expression})`).join(' OR ');
      const rows = this.prepare<unknown[], { id: string; rank: number }>(
          `SELECT m.id AS id, f.rank AS rank FROM memories_fts f JOIN memories m ON m.pk = f.rowid
           WHERE memories_fts MATCH ? AND ${where.sql} ORDER BY f.rank LIMIT ?`,
        )
        .all(match, ...where.params, query.limit);
      return rows.map((r) => ({ id: r.id, score: -r.rank }));
    }
    return this.cappedLexical(kept, where, query.limit, stats.total());
  }

  /**
   * Bounded lexical search for terms that each match a large share of the corpus. FTS5's bm25()
   * would first walk every posting list (to count documents per phrase) and then score every
   * match; instead, each term's newest matches are read by rowid (no scoring), a window of the
   * newest rows that is complete for every term is kept, rows are filtered by scope, and ranked
   * by the sum of the IDF of the terms they contain (newest first on ties). Windows move back in
   * time until `limit` rows are found or `lexicalScanCap` rows per term have been examined 8 times.
   */
  private cappedLexical(
    terms: Array<{ expression: string; df: number }>,
    where: { sql: string; params: unknown[] },
    limit: number,
    total: number,
  ): LexicalCandidate[] {
    const cap = Math.max(limit, this.options.lexicalScanCap);
    const termRows = this.prepare<[string, number, number], number>(
        'SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?',
      )
      .pluck();
    // CROSS JOIN pins the join order: look rows up by pk instead of scanning the scope's index.
    const inScope = this.prepare<unknown[], { pk: number; id: string }>(
      `SELECT m.pk AS pk, m.id AS id FROM json_each(?) j CROSS JOIN memories m ON m.pk = j.value WHERE ${where.sql}`,
    );
    const idf = terms.map((t) => Math.log(1 + (total - t.df + 0.5) / (t.df + 0.5)));
    const found: Array<{ pk: number; id: string; score: number }> = [];
    let upper = Number.MAX_SAFE_INTEGER;
    for (let window = 0; window < 8 && found.length < limit && upper > 0; window++) {
      const scores = new Map<number, number>();
      let floor = 0;
      terms.forEach((term, i) => {
        const rows = termRows.all(term.expression, upper, cap);
        for (const rowid of rows) scores.set(rowid, (scores.get(rowid) ?? 0) + (idf[i] as number));
        if (rows.length === cap) floor = Math.max(floor, rows[rows.length - 1] as number);
      });
      const complete = [...scores.keys()].filter((pk) => pk >= floor);
      for (const row of inScope.all(JSON.stringify(complete), ...where.params)) {
        found.push({ pk: row.pk, id: row.id, score: scores.get(row.pk) as number });
      }
      upper = floor;
      if (floor === 0) break;
    }
    found.sort((a, b) => b.score - a.score || b.pk - a.pk);
    return found.slice(0, limit).map((r) => ({ id: r.id, score: r.score }));
  }

  recordUsage(tenant: string, ids: string[], at: string): Promise<void> {
    return this.run('recordUsage', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (typeof at !== 'string' || Number.isNaN(Date.parse(at)))
        throw new EngramError('INVALID_INPUT', 'at must be an ISO-8601 timestamp');
      if (ids.length === 0) return;
      this.prepare(
          'UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE tenant = ? AND id IN (SELECT value FROM json_each(?))',
        )
        .run(at, tenant, JSON.stringify([...new Set(ids)]));
    });
  }

  setUsage(tenant: string, usage: UsageEntry[]): Promise<void> {
    return this.run('setUsage', () => {
      assertTenant(tenant);
      assertUsageEntries(usage);
      if (usage.length === 0) return;
      const set = this.prepare('UPDATE memories SET use_count = ?, last_used_at = ? WHERE tenant = ? AND id = ?');
      this.db
        .transaction(() => {
          for (const entry of usage) set.run(entry.count, entry.lastUsedAt, tenant, entry.id);
        })
        .immediate();
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.lazyCache?.clear();
    try {
      this.db.close();
    } catch (error) {
      return Promise.reject(toEngramError(error, 'close'));
    }
    return Promise.resolve();
  }
}

/**
 * For queries that differ only in their types: a row's groups, one bit per query, testing the
 * rest of the filter once.
 */
function typeGroups(queries: LexicalQuery[], statuses: ReadonlySet<string>): (id: string, meta: SlotMeta) => number {
  const common = filterPredicate({ ...(queries[0] as LexicalQuery).filter, types: undefined }, statuses);
  const anyType = queries.reduce((bits, q, i) => (q.filter.types === undefined ? bits + 2 ** i : bits), 0);
  const byType = new Map<string, number>();
  queries.forEach((q, i) => {
    for (const type of new Set(q.filter.types ?? [])) byType.set(type, (byType.get(type) ?? 0) + 2 ** i);
  });
  return (id, meta) => (common === null || common.test(id, meta) ? anyType + (byType.get(meta.type) ?? 0) : 0);
}

/**
 * Opens (and by default migrates) a SQLite store. `path: ':memory:'` gives a private in-memory
 * database. Throws EngramError('STORE_ERROR' | 'STORE_BUSY' | 'MIGRATION_ERROR') when the file
 * cannot be opened or migrated.
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  if (options === null || typeof options !== 'object' || typeof options.path !== 'string') {
    throw new EngramError('CONFIG_ERROR', 'createSqliteStore needs a path (a file or ":memory:")');
  }
  return new SqliteStore(options);
}
