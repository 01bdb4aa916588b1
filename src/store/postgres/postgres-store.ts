import pg from 'pg';
import { EngramError } from '../../model/errors.js';
import type { EmbeddingInfo, Memory, MemoryPatch } from '../../model/memory.js';
import type { MemoryStatus, MemoryType } from '../../model/memory-type.js';
import { decodeListCursor, encodeListCursor } from '../list-cursor.js';
import type {
  DenseCandidate,
  DenseQuery,
  LexicalCandidate,
  LexicalQuery,
  ListOptions,
  MemoryFilter,
  MemoryRecord,
  MemoryStore,
  Page,
  ScopeStats,
  UsageEntry,
} from '../memory-store.js';
import {
  assertFilter,
  assertIds,
  assertLimit,
  assertMemoryFields,
  assertRecord,
  assertSpace,
  assertTenant,
  assertUsageEntries,
  assertVector,
} from '../record-validation.js';
import { decodeVector, encodeVector } from '../vector-codec.js';
import { buildTsQuery, fullTextDocument } from './pg-full-text.js';
import { applyPgMigrations, pgNames, type PgMigrationReport, type PgNames } from './pg-migrations.js';
import { isConnectTimeout, toEngramError } from './pg-errors.js';
import { MEMORY_COLUMNS, rowToMemory, toPgVectorLiteral, type PgMemoryRow } from './pg-row-mapper.js';
import { unitVector } from '../../vector/unit-cosine.js';
import { runPg, type PgIsolation, type PgRetryOptions, type RunPgOptions } from './pg-transaction-runner.js';
import { pgvectorDenseSearch, rescoreExactly, ScopeSizeCache } from './pgvector-dense.js';
import {
  detectPgVector,
  ensureDenseIndex,
  listEmbeddingSpaces,
  type PgVectorCapabilities,
} from './pgvector-indexes.js';

/** Largest `limit` accepted by list / denseSearch / lexicalSearch. */
const MAX_LIMIT = 10_000;
/** Rows per INSERT statement. */
const INSERT_CHUNK = 1000;

/** How dense search is computed. */
export type PgVectorMode = 'auto' | 'app' | 'pgvector';

/** Options of {@link createPostgresStore}. Give `connectionString` or `pool`. */
export interface PostgresStoreOptions {
  /** `postgres://user:pass@host:port/db`. Ignored when `pool` is given. */
  connectionString?: string | undefined;
  /** A caller-owned pool (e.g. PGlite through its node-postgres adapter). Not ended by `close()`. */
  pool?: pg.Pool | undefined;
  /** Schema holding Engram's tables. Created if missing. @default 'public' */
  schema?: string | undefined;
  /** Pool size when the store creates the pool. @default 10 */
  maxConnections?: number | undefined;
  /** Give up connecting after this many ms (bad host, firewall). @default 5000 */
  connectTimeoutMs?: number | undefined;
  /**
   * Dense search: 'app' scores every candidate row in the application (exact, any PostgreSQL);
   * 'pgvector' requires the extension; 'auto' uses pgvector when the column is available.
   * @default 'auto'
   */
  vector?: PgVectorMode | undefined;
  /**
   * With pgvector, filters matching at most this many rows are scanned exactly; above it the
   * HNSW index picks the candidates (approximate, iterative scans for filters; cosines are
   * always exact re-scores). @default the measured cut-over of pgvector-dense.ts, which grows
   * with the index size (about 2,300 rows of a 100k-row space for limit 10)
   */
  exactSearchMaxRows?: number | undefined;
  /** Isolation level of write transactions. CockroachDB always runs SERIALIZABLE. @default 'read committed' */
  isolation?: PgIsolation | undefined;
  /** Retries of transient failures (40001, 40P01, "restart transaction", lost connections). */
  retry?: PgRetryOptions | undefined;
  /** Apply pending migrations when the store opens. @default true */
  migrate?: boolean | undefined;
}

interface Sql {
  where: string;
  params: unknown[];
}

function whereFilter(filter: MemoryFilter, params: unknown[] = []): Sql {
  const parts: string[] = [];
  const add = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const { scope } = filter;
  parts.push(`tenant = ${add(scope.tenant)}`);
  if (scope.user !== undefined) parts.push(`user_id = ${add(scope.user)}`);
  if (scope.agent !== undefined) parts.push(`agent_id = ${add(scope.agent)}`);
  if (scope.session !== undefined) parts.push(`session_id = ${add(scope.session)}`);
  if (scope.collection !== undefined) parts.push(`collection = ${add(scope.collection)}`);
  if (filter.types !== undefined) parts.push(`type = ANY(${add(filter.types)}::text[])`);
  parts.push(`status = ANY(${add(filter.statuses ?? ['activated'])}::text[])`);
  if (filter.tags !== undefined && filter.tags.length > 0) parts.push(`tags @> ${add(filter.tags)}::text[]`);
  if (filter.key !== undefined) parts.push(`key = ${add(filter.key)}`);
  if (filter.ids !== undefined) parts.push(`id = ANY(${add(filter.ids)}::text[])`);
  return { where: parts.join(' AND '), params };
}

const ORDER_COLUMNS = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  statedAt: "COALESCE(stated_at, '')",
} as const;

function toIso(value: string | Date | null | undefined): string | null | undefined {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * The PostgreSQL implementation of {@link MemoryStore}. Create it with {@link createPostgresStore}.
 */
export class PostgresStore implements MemoryStore {
  readonly kind = 'postgres';
  private readonly names: PgNames;
  private closed = false;
  private pgvector = false;
  private readonly denseIndexes = new Set<string>();
  private vectorCaps: PgVectorCapabilities = { version: null, iterativeScan: false, citus: false };
  private readonly scopeSizes = new ScopeSizeCache();

  constructor(
    private readonly pool: pg.Pool,
    private readonly ownsPool: boolean,
    private readonly options: PostgresStoreOptions,
  ) {
    this.names = pgNames(options.schema ?? 'public');
  }

  /** True when dense search is pushed down to pgvector. */
  get usesPgVector(): boolean {
    return this.pgvector;
  }

  private run<T>(
    operation: string,
    work: (client: pg.PoolClient) => Promise<T>,
    options: RunPgOptions = {},
  ): Promise<T> {
    if (this.closed) return Promise.reject(new EngramError('STORE_CLOSED', 'the postgres store is closed'));
    return runPg(this.pool, operation, work, { isolation: this.options.isolation, ...options }, this.options.retry);
  }

  /** Applies pending migrations (and adds the pgvector column when possible). Idempotent. */
  async migrate(): Promise<void> {
    await this.migrateWithReport();
  }

  /** {@link migrate}, returning what was applied. Used by `engram migrate`. */
  async migrateWithReport(): Promise<PgMigrationReport> {
    if (this.closed) throw new EngramError('STORE_CLOSED', 'the postgres store is closed');
    const mode = this.options.vector ?? 'auto';
    const report = await applyPgMigrations(this.pool, { schema: this.options.schema, pgvector: mode !== 'app' });
    if (mode === 'pgvector' && !report.pgvector) {
      throw new EngramError(
        'CONFIG_ERROR',
        "vector: 'pgvector' was asked for but the extension is not available on this server",
      );
    }
    this.pgvector = report.pgvector && mode !== 'app';
    if (this.pgvector) {
      this.vectorCaps = await detectPgVector(this.pool);
      for (const space of await listEmbeddingSpaces(this.pool, this.names)) await this.ensureHnsw(space);
    }
    return report;
  }

  /** Without migrating: uses pgvector when the schema already has its column. */
  async detectPgVector(): Promise<boolean> {
    const mode = this.options.vector ?? 'auto';
    const found = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding' AND NOT attisdropped`,
      [this.names.memories],
    );
    this.pgvector = mode !== 'app' && (found.rows[0]?.n ?? 0) > 0;
    if (this.pgvector) this.vectorCaps = await detectPgVector(this.pool);
    if (mode === 'pgvector' && !this.pgvector) {
      throw new EngramError(
        'CONFIG_ERROR',
        "vector: 'pgvector' was asked for but the schema has no pgvector column (run migrate)",
      );
    }
    return this.pgvector;
  }

  /** Creates the HNSW index of one embedding space (pgvector-indexes.ts), once per process. */
  private async ensureHnsw(space: EmbeddingInfo): Promise<void> {
    const key = `${space.model}\u0000${space.dim}`;
    if (!this.pgvector || this.denseIndexes.has(key)) return;
    await this.run('create hnsw index', (c) => ensureDenseIndex(c, this.names, space), {
      transaction: true,
      idempotent: true,
    });
    this.denseIndexes.add(key);
  }

  async insert(records: MemoryRecord[]): Promise<void> {
    if (!Array.isArray(records)) throw new EngramError('INVALID_INPUT', 'records must be an array');
    for (const record of records) assertRecord(record);
    if (records.length === 0) return;
    for (const record of records) if (record.embedding) await this.ensureHnsw(record.embedding);
    const columns =
      'tenant, user_id, id, agent_id, session_id, collection, type, key, tags, level, summary, background, sources, metadata, text, stated_at, created_at, updated_at, status, embed_model, embed_dim, vector, fts' +
      (this.pgvector ? ', embedding' : '');
    // One statement per chunk over unnest()ed column arrays: 24 bind parameters whatever the
    // chunk size, instead of 24 per row.
    const select =
      `SELECT u.tenant, u.user_id, u.id, u.agent_id, u.session_id, u.collection, u.type, u.key,
              ARRAY(SELECT jsonb_array_elements_text(u.tags)), u.level, u.summary, u.background, u.sources, u.metadata,
              u.text, u.stated_at, u.created_at, u.updated_at, u.status, u.embed_model, u.embed_dim, u.vector,
              to_tsvector('simple', u.doc)` + (this.pgvector ? ', u.embedding::vector' : '');
    const from = `FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
        $9::jsonb[], $10::text[], $11::text[], $12::text[], $13::jsonb[], $14::jsonb[], $15::text[], $16::text[], $17::text[],
        $18::text[], $19::text[], $20::text[], $21::int[], $22::bytea[], $23::text[], $24::text[])
      AS u(tenant, user_id, id, agent_id, session_id, collection, type, key, tags, level, summary, background, sources,
           metadata, text, stated_at, created_at, updated_at, status, embed_model, embed_dim, vector, doc, embedding)`;
    const sql = `INSERT INTO ${this.names.memories} (${columns}) ${select} ${from}`;
    await this.run(
      'insert',
      async (client) => {
        for (let start = 0; start < records.length; start += INSERT_CHUNK) {
          const chunk = records.slice(start, start + INSERT_CHUNK);
          const col = <T>(f: (r: MemoryRecord) => T): T[] => chunk.map(f);
          await client.query(sql, [
            col((r) => r.scope.tenant),
            col((r) => r.scope.user ?? null),
            col((r) => r.id),
            col((r) => r.scope.agent ?? null),
            col((r) => r.scope.session ?? null),
            col((r) => r.scope.collection ?? null),
            col((r) => r.type),
            col((r) => r.key ?? null),
            col((r) => JSON.stringify(r.tags)),
            col((r) => r.level ?? null),
            col((r) => r.summary ?? null),
            col((r) => r.background ?? null),
            col((r) => JSON.stringify(r.sources)),
            col((r) => JSON.stringify(r.metadata)),
            col((r) => r.text),
            col((r) => toIso(r.statedAt) ?? null),
            col((r) => r.createdAt),
            col((r) => r.updatedAt),
            col((r) => r.status),
            col((r) => (r.vector ? (r.embedding?.model ?? null) : null)),
            col((r) => (r.vector ? (r.embedding?.dim ?? null) : null)),
            col((r) => (r.vector ? encodeVector(r.vector) : null)),
            col((r) => fullTextDocument(r.text)),
            col((r) => (this.pgvector && r.vector ? toPgVectorLiteral(r.vector) : null)),
          ]);
        }
      },
      { transaction: true },
    );
  }

  async get(tenant: string, ids: string[]): Promise<Memory[]> {
    assertTenant(tenant);
    assertIds(ids);
    if (ids.length === 0) return [];
    const rows = await this.run(
      'get',
      (c) =>
        c.query<PgMemoryRow>(
          `SELECT ${MEMORY_COLUMNS} FROM ${this.names.memories} WHERE tenant = $1 AND id = ANY($2::text[])`,
          [tenant, [...new Set(ids)]],
        ),
      { idempotent: true },
    );
    const byId = new Map(rows.rows.map((row) => [row.id, rowToMemory(row)]));
    const out: Memory[] = [];
    const seen = new Set<string>();
    for (const id of ids) {
      const memory = byId.get(id);
      if (memory && !seen.has(id)) {
        out.push(memory);
        seen.add(id);
      }
    }
    return out;
  }

  async getVectors(tenant: string, ids: string[]): Promise<Map<string, Float32Array>> {
    assertTenant(tenant);
    assertIds(ids);
    const out = new Map<string, Float32Array>();
    if (ids.length === 0) return out;
    const rows = await this.run(
      'getVectors',
      (c) =>
        c.query<{ id: string; vector: Buffer; embed_dim: number | null }>(
          `SELECT id, vector, embed_dim FROM ${this.names.memories} WHERE tenant = $1 AND id = ANY($2::text[]) AND vector IS NOT NULL`,
          [tenant, [...new Set(ids)]],
        ),
      { idempotent: true },
    );
    for (const row of rows.rows) out.set(row.id, decodeVector(row.vector, row.embed_dim, row.id));
    return out;
  }

  async update(
    tenant: string,
    id: string,
    patch: MemoryPatch & { updatedAt: string; statedAt?: string | null },
    vector?: { vector: Float32Array; embedding: EmbeddingInfo } | null,
  ): Promise<Memory | null> {
    assertTenant(tenant);
    if (typeof id !== 'string' || id === '') throw new EngramError('INVALID_INPUT', 'id must be a non-empty string');
    if (patch === null || typeof patch !== 'object') throw new EngramError('INVALID_INPUT', 'patch must be an object');
    const statedAt = toIso(patch.statedAt as string | Date | null | undefined);
    assertMemoryFields({ ...patch, statedAt } as Partial<MemoryRecord>, id);
    if (typeof patch.updatedAt !== 'string' || Number.isNaN(Date.parse(patch.updatedAt))) {
      throw new EngramError('INVALID_INPUT', 'updatedAt must be an ISO-8601 timestamp', { details: { id } });
    }
    if (vector) {
      assertVector(vector.vector, vector.embedding, id);
      await this.ensureHnsw(vector.embedding);
    }
    const params: unknown[] = [tenant, id];
    const sets: string[] = [];
    const set = (column: string, value: unknown, cast = ''): void => {
      params.push(value);
      sets.push(`${column} = $${params.length}${cast}`);
    };
    if (patch.text !== undefined) {
      set('text', patch.text);
      params.push(fullTextDocument(patch.text));
      sets.push(`fts = to_tsvector('simple', $${params.length})`);
    }
    if (patch.type !== undefined) set('type', patch.type);
    if (patch.key !== undefined) set('key', patch.key);
    if (patch.tags !== undefined) set('tags', patch.tags, '::text[]');
    if (patch.level !== undefined) set('level', patch.level);
    if (patch.summary !== undefined) set('summary', patch.summary);
    if (patch.background !== undefined) set('background', patch.background);
    if (patch.sources !== undefined) set('sources', JSON.stringify(patch.sources), '::jsonb');
    if (patch.metadata !== undefined) set('metadata', JSON.stringify(patch.metadata), '::jsonb');
    if (statedAt !== undefined) set('stated_at', statedAt);
    if (patch.status !== undefined) set('status', patch.status);
    set('updated_at', patch.updatedAt);
    if (vector !== undefined) {
      set('embed_model', vector ? vector.embedding.model : null);
      set('embed_dim', vector ? vector.embedding.dim : null);
      set('vector', vector ? encodeVector(vector.vector) : null);
      if (this.pgvector) set('embedding', vector ? toPgVectorLiteral(vector.vector) : null, '::vector');
    }
    const result = await this.run(
      'update',
      (c) =>
        c.query<PgMemoryRow>(
          `UPDATE ${this.names.memories} SET ${sets.join(', ')} WHERE tenant = $1 AND id = $2 RETURNING ${MEMORY_COLUMNS}`,
          params,
        ),
      { transaction: true, idempotent: true },
    );
    const row = result.rows[0];
    return row ? rowToMemory(row) : null;
  }

  async delete(tenant: string, ids: string[]): Promise<number> {
    assertTenant(tenant);
    assertIds(ids);
    if (ids.length === 0) return 0;
    const result = await this.run(
      'delete',
      (c) =>
        c.query(`DELETE FROM ${this.names.memories} WHERE tenant = $1 AND id = ANY($2::text[])`, [
          tenant,
          [...new Set(ids)],
        ]),
      { transaction: true },
    );
    return result.rowCount ?? 0;
  }

  async list(filter: MemoryFilter, options: ListOptions = {}): Promise<Page<Memory>> {
    assertFilter(filter);
    const limit = options.limit ?? 50;
    assertLimit(limit, MAX_LIMIT);
    const order = options.order ?? 'createdAt';
    const direction = options.direction ?? 'asc';
    if (!(order in ORDER_COLUMNS)) throw new EngramError('INVALID_INPUT', `unknown list order ${String(order)}`);
    if (direction !== 'asc' && direction !== 'desc')
      throw new EngramError('INVALID_INPUT', `unknown direction ${String(direction)}`);
    const column = ORDER_COLUMNS[order];
    const { where, params } = whereFilter(filter);
    let keyset = '';
    if (options.cursor !== undefined) {
      const cursor = decodeListCursor(options.cursor, order, direction);
      params.push(cursor.value ?? '', cursor.id);
      const op = direction === 'asc' ? '>' : '<';
      keyset = ` AND (${column} COLLATE "C", id) ${op} ($${params.length - 1} COLLATE "C", $${params.length} COLLATE "C")`;
    }
    params.push(limit + 1);
    const dir = direction === 'asc' ? 'ASC' : 'DESC';
    const result = await this.run(
      'list',
      (c) =>
        c.query<PgMemoryRow>(
          `SELECT ${MEMORY_COLUMNS} FROM ${this.names.memories} WHERE ${where}${keyset} ORDER BY ${column} COLLATE "C" ${dir}, id COLLATE "C" ${dir} LIMIT $${params.length}`,
          params,
        ),
      { idempotent: true },
    );
    const rows = result.rows;
    const more = rows.length > limit;
    const items = rows.slice(0, limit).map(rowToMemory);
    const last = items[items.length - 1];
    const lastValue = (m: Memory): string | null =>
      order === 'createdAt' ? m.createdAt : order === 'updatedAt' ? m.updatedAt : m.statedAt;
    return {
      items,
      nextCursor: more && last ? encodeListCursor({ order, direction, value: lastValue(last), id: last.id }) : null,
    };
  }

  async count(filter: MemoryFilter): Promise<number> {
    assertFilter(filter);
    const { where, params } = whereFilter(filter);
    const result = await this.run(
      'count',
      (c) => c.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.names.memories} WHERE ${where}`, params),
      { idempotent: true },
    );
    return result.rows[0]?.n ?? 0;
  }

  async stats(filter: MemoryFilter): Promise<ScopeStats> {
    assertFilter(filter);
    const { where, params } = whereFilter(filter);
    const rows = await this.run(
      'stats',
      (c) =>
        c.query<{ type: string; status: string; embed_model: string | null; embed_dim: number | null; n: number }>(
          `SELECT type, status, embed_model, embed_dim, count(*)::int AS n FROM ${this.names.memories} WHERE ${where} GROUP BY 1, 2, 3, 4`,
          params,
        ),
      { idempotent: true },
    );
    const stats: ScopeStats = { total: 0, byType: {}, byStatus: {}, models: [] };
    const models = new Map<string, EmbeddingInfo & { count: number }>();
    for (const row of rows.rows) {
      stats.total += row.n;
      const type = row.type as MemoryType;
      const status = row.status as MemoryStatus;
      stats.byType[type] = (stats.byType[type] ?? 0) + row.n;
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + row.n;
      if (row.embed_model !== null && row.embed_dim !== null) {
        const key = `${row.embed_model}\u0000${row.embed_dim}`;
        const entry = models.get(key) ?? { model: row.embed_model, dim: row.embed_dim, count: 0 };
        entry.count += row.n;
        models.set(key, entry);
      }
    }
    stats.models = [...models.values()].sort(
      (a, b) => b.count - a.count || (a.model < b.model ? -1 : a.model > b.model ? 1 : a.dim - b.dim),
    );
    return stats;
  }

  async denseSearch(query: DenseQuery): Promise<DenseCandidate[]> {
    assertFilter(query.filter);
    assertLimit(query.limit, MAX_LIMIT);
    if (!(query.vector instanceof Float32Array))
      throw new EngramError('INVALID_VECTOR', 'query vector must be a Float32Array');
    if (typeof query.model !== 'string' || query.model === '')
      throw new EngramError('INVALID_INPUT', 'model is required');
    for (let i = 0; i < query.vector.length; i++) {
      if (!Number.isFinite(query.vector[i] as number))
        throw new EngramError('INVALID_VECTOR', 'query vector contains NaN or Infinity');
    }
    const dim = query.vector.length;
    const unit = unitVector(query.vector);
    // Like every backend: a zero query vector is similar to nothing.
    if (unit === null || dim === 0 || unit.every((x) => x === 0)) return [];
    return this.pgvector ? this.denseSearchPgVector(query, dim) : this.denseSearchApp(query, dim, unit);
  }

  /** Exact: every matching row of the model is scored in the application. */
  private async denseSearchApp(query: DenseQuery, dim: number, unit: Float32Array): Promise<DenseCandidate[]> {
    const { where, params } = whereFilter(query.filter);
    params.push(query.model, dim);
    const rows = await this.run(
      'denseSearch',
      (c) =>
        c.query<{ id: string; vector: Buffer; embed_dim: number | null }>(
          `SELECT id, vector, embed_dim FROM ${this.names.memories} WHERE ${where} AND embed_model = $${params.length - 1} AND embed_dim = $${params.length} AND vector IS NOT NULL`,
          params,
        ),
      { idempotent: true },
    );
    return rescoreExactly(rows.rows, unit, query.limit);
  }

  /** pgvector (pgvector-dense.ts): HNSW or exact candidates, re-scored with the shared cosine. */
  private async denseSearchPgVector(query: DenseQuery, dim: number): Promise<DenseCandidate[]> {
    const { where, params } = whereFilter(query.filter);
    const request = { where, params, space: { model: query.model, dim }, vector: query.vector, limit: query.limit };
    const tuning = { exactMaxRows: this.options.exactSearchMaxRows, scopeSizes: this.scopeSizes };
    const result = await this.run(
      'denseSearch',
      (c) => pgvectorDenseSearch(c, this.names, this.vectorCaps, request, tuning),
      { transaction: true, idempotent: true },
    );
    return result.candidates;
  }

  async lexicalSearch(query: LexicalQuery): Promise<LexicalCandidate[]> {
    assertFilter(query.filter);
    assertLimit(query.limit, MAX_LIMIT);
    if (!Array.isArray(query.terms)) throw new EngramError('INVALID_INPUT', 'terms must be an array of strings');
    assertSpace(query.space);
    const tsquery = buildTsQuery(query.terms);
    if (tsquery === null) return [];
    const filtered = whereFilter(query.filter);
    const { params } = filtered;
    let where = filtered.where;
    if (query.space !== undefined) {
      params.push(query.space.model, query.space.dim);
      where += ` AND embed_model = $${params.length - 1} AND embed_dim = $${params.length} AND vector IS NOT NULL`;
    }
    params.push(tsquery, query.limit);
    const q = `to_tsquery('simple', $${params.length - 1})`;
    const rows = await this.run(
      'lexicalSearch',
      (c) =>
        c.query<{ id: string; score: number }>(
          `SELECT id, ts_rank(fts, ${q})::float8 AS score FROM ${this.names.memories} WHERE ${where} AND fts @@ ${q} ORDER BY score DESC, id LIMIT $${params.length}`,
          params,
        ),
      { idempotent: true },
    );
    return rows.rows.map((row) => ({ id: row.id, score: row.score }));
  }

  async recordUsage(tenant: string, ids: string[], at: string): Promise<void> {
    assertTenant(tenant);
    assertIds(ids);
    if (typeof at !== 'string' || Number.isNaN(Date.parse(at)))
      throw new EngramError('INVALID_INPUT', 'at must be an ISO-8601 timestamp');
    if (ids.length === 0) return;
    await this.run(
      'recordUsage',
      (c) =>
        // Rows are locked in id order, so concurrent calls with overlapping ids cannot deadlock.
        c.query(
          `WITH target AS (SELECT id FROM ${this.names.memories} WHERE tenant = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE)
           UPDATE ${this.names.memories} AS m SET use_count = m.use_count + 1, last_used_at = $3
           FROM target WHERE m.tenant = $1 AND m.id = target.id`,
          [tenant, [...new Set(ids)], at],
        ),
      { transaction: true },
    );
  }

  /** Sets use counts and last-used times exactly (used by imports). Unknown ids are ignored. */
  async setUsage(tenant: string, usage: UsageEntry[]): Promise<void> {
    assertTenant(tenant);
    assertUsageEntries(usage);
    if (usage.length === 0) return;
    await this.run(
      'setUsage',
      (c) =>
        c.query(
          `UPDATE ${this.names.memories} AS m SET use_count = u.count, last_used_at = u.last_used_at
           FROM unnest($2::text[], $3::int[], $4::text[]) AS u(id, count, last_used_at)
           WHERE m.tenant = $1 AND m.id = u.id`,
          [tenant, usage.map((u) => u.id), usage.map((u) => u.count), usage.map((u) => u.lastUsedAt)],
        ),
      { transaction: true, idempotent: true },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }
}

function parseConnectionString(connectionString: string): void {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch (cause) {
    throw new EngramError(
      'CONFIG_ERROR',
      'invalid PostgreSQL connection string (expected postgres://user:pass@host:port/db)',
      {
        cause,
      },
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new EngramError(
      'CONFIG_ERROR',
      `invalid PostgreSQL URL scheme ${url.protocol} (expected postgres:// or postgresql://)`,
    );
  }
  if (url.port !== '' && !/^\d+$/.test(url.port)) {
    throw new EngramError('CONFIG_ERROR', 'invalid port in PostgreSQL URL');
  }
}

/**
 * Opens a PostgreSQL store: checks the URL, connects once (failing fast with
 * EngramError('STORE_ERROR', details.pgCode = ECONNREFUSED / 28P01 / 3D000 …) or
 * ('TIMEOUT') after `connectTimeoutMs`), and applies migrations unless `migrate: false`.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  let pool: pg.Pool;
  let owns: boolean;
  if (options.pool) {
    pool = options.pool;
    owns = false;
  } else {
    if (typeof options.connectionString !== 'string' || options.connectionString === '') {
      throw new EngramError('CONFIG_ERROR', 'createPostgresStore needs a connectionString or a pool');
    }
    parseConnectionString(options.connectionString);
    pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
    });
    owns = true;
  }
  // Idle clients whose server connection dies emit 'error' on the pool; without a listener that
  // would crash the process. The pool has already dropped the client; the next query reconnects.
  pool.on('error', () => undefined);
  const store = new PostgresStore(pool, owns, options);
  try {
    const client = await pool.connect();
    try {
      await client.query('SELECT 1');
    } finally {
      client.release();
    }
    if (options.migrate !== false) await store.migrateWithReport();
    else await store.detectPgVector();
  } catch (error) {
    if (owns) await pool.end().catch(() => undefined);
    if (isConnectTimeout(error) || (error instanceof EngramError && isConnectTimeout(error.cause))) {
      throw new EngramError(
        'TIMEOUT',
        `could not connect to PostgreSQL within ${options.connectTimeoutMs ?? 5_000} ms`,
        {
          cause: error,
          isRetryable: true,
          details: { pgCode: 'CONNECT_TIMEOUT' },
        },
      );
    }
    throw toEngramError(error, 'connect');
  }
  return store;
}
