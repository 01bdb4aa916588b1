import type pg from 'pg';
import { EngramError } from '../../model/errors.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type {
  DenseCandidate,
  DenseQuery,
  LexicalCandidate,
  LexicalQuery,
  MemoryRecord,
  UsageEntry,
} from '../memory-store.js';
import { filterWhere, spaceWhere } from '../sql/filter-where.js';
import { patchAssignments, RECORD_COLUMNS, recordValues } from '../sql/memory-columns.js';
import type { SqlQueries } from '../sql/query-runner.js';
import type { SqlDialect } from '../sql/sql-dialect.js';
import { SqlMemoryStore, type RowChange } from '../sql/sql-memory-store.js';
import { createPgDialect, PG_ARRAY_TYPES } from './pg-dialect.js';
import { appSideDenseSearch, type PgDenseContext, type PgDenseSearch } from './pg-dense-search.js';
import { buildTsQuery, fullTextDocument } from './pg-full-text.js';
import { applyPgMigrations, type PgMigrationReport } from './pg-migrations.js';
import { pgNames, type PgNames } from './pg-names.js';
import { PgQueryRunner } from './pg-query-runner.js';
import { PgVectorDenseSearch } from './pgvector-dense-search.js';
import type { PostgresStoreOptions } from './postgres-store-options.js';

export type { PgVectorMode, PostgresStoreOptions } from './postgres-store-options.js';

/** Rows per INSERT statement. */
const INSERT_CHUNK = 1000;

/**
 * The PostgreSQL backend of the store engine (also PGlite's, through its node-postgres adapter):
 * tsvector full text, float32 `bytea` vectors scored in the application or candidates from
 * pgvector, retries of transient failures. Create it with `createPostgresStore`.
 */
export class PostgresStore extends SqlMemoryStore {
  readonly kind = 'postgres';
  protected readonly dialect: SqlDialect;
  protected readonly runner: PgQueryRunner;
  private readonly names: PgNames;
  private dense: PgDenseSearch;

  constructor(
    private readonly pool: pg.Pool,
    private readonly ownsPool: boolean,
    private readonly options: PostgresStoreOptions,
  ) {
    super();
    this.names = pgNames(options.schema ?? 'public');
    this.dialect = createPgDialect(this.names);
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

  /** {@link migrate}, returning what was applied. Used by `engram migrate`. */
  migrateWithReport(): Promise<PgMigrationReport> {
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
    this.useDenseSearch(present);
    return present;
  }

  private useDenseSearch(pgvector: boolean): void {
    this.dense = pgvector
      ? new PgVectorDenseSearch(this.denseContext, this.options.exactSearchMaxRows ?? 20_000)
      : appSideDenseSearch(this.denseContext);
  }

  /** Applies pending migrations (and adds the pgvector column when possible). Idempotent. */
  protected async applyMigrations(): Promise<void> {
    await this.applyMigrationsWithReport();
  }

  private async applyMigrationsWithReport(): Promise<PgMigrationReport> {
    const mode = this.options.vector ?? 'auto';
    const report = await applyPgMigrations(this.pool, {
      schema: this.options.schema,
      pgvector: mode !== 'app',
      topology: this.options.topology,
    });
    if (mode === 'pgvector' && !report.pgvector) {
      throw new EngramError(
        'CONFIG_ERROR',
        "vector: 'pgvector' was asked for but the extension is not available on this server",
      );
    }
    this.useDenseSearch(report.pgvector && mode !== 'app');
    if (this.usesPgVector) {
      const dims = await this.pool.query<{ d: number }>(
        `SELECT DISTINCT embed_dim AS d FROM ${this.names.memories} WHERE embed_dim IS NOT NULL`,
      );
      await this.dense.prepare(dims.rows.map((row) => row.d));
    }
    return report;
  }

  protected override prepareVectors(dims: number[]): Promise<void> {
    return this.dense.prepare(dims);
  }

  /**
   * One statement per chunk over unnest()ed column arrays: one bind parameter per column whatever
   * the chunk size, instead of one per column and row.
   */
  private insertSql(): string {
    const extra = this.dense.column;
    const columns = [...RECORD_COLUMNS.map((c) => c.column), 'fts', ...(extra ? [extra.name] : [])];
    const selects = [
      ...RECORD_COLUMNS.map((c) => this.dialect.valueSql(c.kind, `u.${c.column}`)),
      `to_tsvector('simple', u.doc)`,
      ...(extra ? [extra.sql(`u.${extra.name}`)] : []),
    ];
    const arrays = [...RECORD_COLUMNS.map((c) => PG_ARRAY_TYPES[c.kind]), 'text[]', ...(extra ? ['text[]'] : [])];
    const inputs = [...RECORD_COLUMNS.map((c) => c.column), 'doc', ...(extra ? [extra.name] : [])];
    return `INSERT INTO ${this.names.memories} (${columns.join(', ')}) SELECT ${selects.join(', ')}
      FROM unnest(${arrays.map((type, i) => `$${i + 1}::${type}`).join(', ')}) AS u(${inputs.join(', ')})`;
  }

  protected async insertRows(sql: SqlQueries, records: MemoryRecord[]): Promise<void> {
    const statement = this.insertSql();
    const extra = this.dense.column;
    for (let start = 0; start < records.length; start += INSERT_CHUNK) {
      const chunk = records.slice(start, start + INSERT_CHUNK);
      const rows = chunk.map((r) => recordValues(r, this.dialect));
      const columns = RECORD_COLUMNS.map((_, i) => rows.map((row) => row[i]));
      columns.push(chunk.map((r) => fullTextDocument(r.text)));
      if (extra) columns.push(chunk.map((r) => (r.vector ? extra.value(r.vector) : null)));
      await sql.run(statement, columns);
    }
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

  protected async addUsage(sql: SqlQueries, tenant: string, ids: string[], at: string): Promise<void> {
    // Rows are locked in id order, so concurrent calls with overlapping ids cannot deadlock.
    await sql.run(
      `WITH target AS (SELECT id FROM ${this.names.memories} WHERE tenant = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE)
       UPDATE ${this.names.memories} AS m SET use_count = m.use_count + 1, last_used_at = $3
       FROM target WHERE m.tenant = $1 AND m.id = target.id`,
      [tenant, ids, at],
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
    const tsquery = buildTsQuery(query.terms);
    if (tsquery === null) return [];
    const params = this.dialect.params();
    const where = filterWhere(query.filter, this.dialect, params) + spaceWhere(query.space, params);
    const q = `to_tsquery('simple', ${params.add(tsquery)})`;
    const sql = `SELECT m.id AS id, ts_rank(m.fts, ${q})::float8 AS score FROM ${this.names.memories} m
      WHERE ${where} AND m.fts @@ ${q} ORDER BY score DESC, m.id LIMIT ${params.add(query.limit)}`;
    return this.runner.read('lexicalSearch', (s) => s.all<LexicalCandidate>(sql, params.values));
  }

  protected async closeConnection(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
