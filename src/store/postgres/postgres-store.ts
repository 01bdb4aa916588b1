import type pg from 'pg';
import { EngramError } from '../../model/errors.js';
import type { EmbeddingInfo } from '../../model/memory.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type {
  DenseCandidate,
  DenseQuery,
  LexicalCandidate,
  LexicalQuery,
  MemoryRecord,
  UsageEntry,
} from '../memory-store.js';
import { patchAssignments } from '../sql/memory-columns.js';
import type { SqlQueries } from '../sql/query-runner.js';
import type { SqlDialect } from '../sql/sql-dialect.js';
import { SqlMemoryStore, type RowChange } from '../sql/sql-memory-store.js';
import { insertByUnnest, insertByValues } from './pg-batch-insert.js';
import { createPgDialect } from './pg-dialect.js';
import { appSideDenseSearch, type PgDenseContext, type PgDenseSearch } from './pg-dense-search.js';
import { buildTsQuery, fullTextDocument } from './pg-full-text.js';
import { pgLexicalStatement, type LexicalRow } from './pg-lexical-search.js';
import { applyPgMigrations, type PgMigrationReport } from './pg-migrations.js';
import { pgNames, type PgNames } from './pg-names.js';
import { PgQueryRunner } from './pg-query-runner.js';
import { dropCommonTerms, TermShareCache } from './pg-term-shares.js';
import { SINGLE_NODE, type PgTopology } from './pg-topology.js';
import { PgVectorDenseSearch } from './pgvector-dense-search.js';
import { detectPgVector, listEmbeddingSpaces, type DenseIndexReport } from './pgvector-indexes.js';
import type { PostgresStoreOptions } from './postgres-store-options.js';

export type { PgVectorMode, PostgresStoreOptions } from './postgres-store-options.js';

/** Words held by more than this share of the rows are left out of full-text queries (pg-term-shares.ts). */
const DEFAULT_FULL_TEXT_MAX_SHARE = 0.02;

/** What `engram migrate` did on PostgreSQL: the schema report, the dense path and its indexes. */
export interface PgStoreMigrationReport extends PgMigrationReport {
  /** 'pgvector' (HNSW candidates) or 'app' (every row scored in the application). */
  denseSearch: string;
  /** One entry per embedding space with stored vectors (pgvector only). */
  indexes: DenseIndexReport[];
}

/**
 * The PostgreSQL backend of the store engine (also PGlite's, through its node-postgres adapter):
 * tsvector full text, float32 `bytea` vectors scored in the application or candidates from
 * pgvector, retries of transient failures, one server or a Citus cluster (`topology`). Create it
 * with `createPostgresStore`.
 */
export class PostgresStore extends SqlMemoryStore {
  readonly kind = 'postgres';
  protected readonly dialect: SqlDialect;
  protected readonly runner: PgQueryRunner;
  private readonly names: PgNames;
  private dense: PgDenseSearch;
  private readonly termShares: TermShareCache;

  constructor(
    private readonly pool: pg.Pool,
    private readonly ownsPool: boolean,
    private readonly options: PostgresStoreOptions,
    /** Where the tables live; resolved by `createPostgresStore` (option `topology`). */
    readonly topology: PgTopology = SINGLE_NODE,
  ) {
    super();
    this.names = pgNames(options.schema ?? 'public');
    this.dialect = createPgDialect(this.names, topology.batchInsert);
    this.termShares = new TermShareCache(options.schema ?? 'public', (work) => this.runner.read('termShares', work));
    this.runner = new PgQueryRunner(pool, options.isolation, options.retry);
    this.dense = appSideDenseSearch(this.denseContext);
  }

  private get denseContext(): PgDenseContext {
    return { runner: this.runner, dialect: this.dialect, names: this.names };
  }

  /** True when dense search is pushed down to pgvector. */
  get usesPgVector(): boolean {
    return this.dense.name === 'pgvector';
  }

  /** {@link migrate}, returning what was applied, created and placed. Used by `engram migrate`. */
  migrateWithReport(): Promise<PgStoreMigrationReport> {
    return this.guard('migrate', () => this.applyMigrationsWithReport());
  }

  /** Without migrating: uses pgvector when the schema already has its column. */
  async detectPgVector(): Promise<boolean> {
    const mode = this.options.vector ?? 'auto';
    const found = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding' AND NOT attisdropped`,
      [this.names.memories],
    );
    const present = mode !== 'app' && (found.rows[0]?.n ?? 0) > 0;
    if (mode === 'pgvector' && !present) {
      throw new EngramError(
        'CONFIG_ERROR',
        "vector: 'pgvector' was asked for but the schema has no pgvector column (run migrate)",
      );
    }
    await this.useDenseSearch(present);
    return present;
  }

  private async useDenseSearch(pgvector: boolean): Promise<void> {
    if (!pgvector) {
      this.dense = appSideDenseSearch(this.denseContext);
      return;
    }
    const caps = await this.runner.read('detect pgvector', (sql) => detectPgVector(sql));
    const { hnsw } = this.options;
    this.dense = new PgVectorDenseSearch(this.denseContext, {
      caps,
      tuning: { exactMaxRows: this.options.exactSearchMaxRows, efSearch: hnsw?.efSearch },
      build: { m: hnsw?.m, efConstruction: hnsw?.efConstruction },
    });
  }

  /** Applies pending migrations (and adds the pgvector column when possible). Idempotent. */
  protected async applyMigrations(): Promise<void> {
    await this.applyMigrationsWithReport();
  }

  private async applyMigrationsWithReport(): Promise<PgStoreMigrationReport> {
    const mode = this.options.vector ?? 'auto';
    const report = await applyPgMigrations(this.pool, {
      schema: this.options.schema,
      pgvector: mode !== 'app',
      topology: this.topology,
    });
    if (mode === 'pgvector' && !report.pgvector) {
      throw new EngramError(
        'CONFIG_ERROR',
        `vector: 'pgvector' was asked for but ${report.extension?.message ?? 'the extension is not available'}`,
      );
    }
    await this.useDenseSearch(report.pgvector && mode !== 'app');
    const spaces = this.usesPgVector
      ? await this.runner.read('list embedding spaces', (sql) => listEmbeddingSpaces(sql, this.names))
      : [];
    const indexes = await this.dense.prepare(spaces);
    return { ...report, denseSearch: this.dense.name, indexes };
  }

  protected override async prepareVectors(spaces: EmbeddingInfo[]): Promise<void> {
    await this.dense.prepare(spaces);
  }

  protected async insertRows(sql: SqlQueries, records: MemoryRecord[]): Promise<void> {
    const target = { table: this.names.memories, dialect: this.dialect, extra: this.dense.column };
    if (this.topology.batchInsert === 'values') await insertByValues(sql, target, records);
    else await insertByUnnest(sql, target, records);
  }

  protected async updateRow(sql: SqlQueries, change: RowChange): Promise<SelectedMemory | null> {
    const { patch, vector } = change;
    const params = this.dialect.params();
    const sets = patchAssignments(patch, vector, this.dialect, params);
    if (patch.text !== undefined) sets.push(`fts = to_tsvector('simple', ${params.add(fullTextDocument(patch.text))})`);
    const extra = this.dense.column;
    if (extra && vector !== undefined) {
      sets.push(`${extra.name} = ${extra.sql(params.add(vector ? extra.value(vector.vector) : null))}`);
    }
    const rows = await sql.all<SelectedMemory>(
      `UPDATE ${this.names.memories} AS m SET ${sets.join(', ')}
       WHERE m.tenant = ${params.add(change.tenant)} AND m.id = ${params.add(change.id)} RETURNING ${MEMORY_SELECT}`,
      params.values,
    );
    return rows[0] ?? null;
  }

  protected deleteRows(sql: SqlQueries, tenant: string, ids: string[]): Promise<number> {
    return Promise.resolve(
      sql.run(`DELETE FROM ${this.names.memories} AS m WHERE m.tenant = $1 AND m.id = ANY($2::text[])`, [tenant, ids]),
    );
  }

  protected async incrementUsage(sql: SqlQueries, tenant: string, usage: UsageEntry[]): Promise<void> {
    // Rows are locked in id order, so concurrent calls with overlapping ids cannot deadlock.
    await sql.run(
      `WITH target AS (SELECT id FROM ${this.names.memories} WHERE tenant = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE)
       UPDATE ${this.names.memories} AS m
       SET use_count = m.use_count + u.count, last_used_at = coalesce(u.last_used_at, m.last_used_at)
       FROM target JOIN unnest($2::text[], $3::int[], $4::text[]) AS u(id, count, last_used_at) ON u.id = target.id
       WHERE m.tenant = $1 AND m.id = target.id`,
      [tenant, usage.map((u) => u.id), usage.map((u) => u.count), usage.map((u) => u.lastUsedAt)],
    );
  }

  protected async writeUsage(sql: SqlQueries, tenant: string, usage: UsageEntry[]): Promise<void> {
    await sql.run(
      `UPDATE ${this.names.memories} AS m SET use_count = u.count, last_used_at = u.last_used_at
       FROM unnest($2::text[], $3::int[], $4::text[]) AS u(id, count, last_used_at)
       WHERE m.tenant = $1 AND m.id = u.id`,
      [tenant, usage.map((u) => u.id), usage.map((u) => u.count), usage.map((u) => u.lastUsedAt)],
    );
  }

  protected denseCandidates(query: DenseQuery, unit: Float32Array): Promise<DenseCandidate[]> {
    return this.dense.search(query, unit);
  }

  protected async lexicalCandidates(query: LexicalQuery): Promise<LexicalCandidate[]> {
    const maxShare = this.options.fullTextMaxShare ?? DEFAULT_FULL_TEXT_MAX_SHARE;
    const shares = maxShare >= 1 ? null : await this.termShares.get();
    const tsquery = buildTsQuery(dropCommonTerms(query.terms, shares, maxShare));
    if (tsquery === null) return [];
    const statement = pgLexicalStatement(query, tsquery, { dialect: this.dialect, table: this.names.memories });
    const rows = await this.runner.read('lexicalSearch', (s) => s.all<LexicalRow>(statement.sql, statement.params));
    return statement.candidates(rows);
  }

  protected async closeConnection(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
