import { MAX_STORE_LIMIT } from '../../model/memory-filter.js';
import type { DenseCandidate, DenseQuery } from '../memory-store.js';
import { filterWhere } from '../sql/filter-where.js';
import type { SqlQueries } from '../sql/query-runner.js';
import { scoreVectorRows, type VectorRow } from '../sql/vector-rows.js';
import type { PgDenseContext, PgDenseSearch, PgVectorColumn } from './pg-dense-search.js';
import { quoteIdent } from './pg-names.js';

/** pgvector cannot build an HNSW index on vectors longer than this. */
export const HNSW_MAX_DIM = 2000;

/** Formats a vector as pgvector text input; float32 values print exactly. */
export function toPgVectorLiteral(vector: Float32Array): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    out += String(vector[i]);
  }
  return `${out}]`;
}

/** The `embedding vector` column pgvector searches (added by the migrations when the extension is there). */
export const PGVECTOR_COLUMN: PgVectorColumn = {
  name: 'embedding',
  sql: (reference) => `${reference}::vector`,
  value: toPgVectorLiteral,
};

/**
 * Dense search pushed down to pgvector: the server picks an over-fetched candidate set (an exact
 * sequential scan when the filter matches at most `exactMaxRows` rows, a per-dimension partial
 * HNSW index otherwise); the candidates are then re-scored with the same unit-vector cosine as
 * every other backend, so scores are identical to app-side scoring.
 */
export class PgVectorDenseSearch implements PgDenseSearch {
  readonly name = 'pgvector';
  readonly column = PGVECTOR_COLUMN;
  private readonly hnswDims = new Set<number>();

  constructor(
    private readonly context: PgDenseContext,
    private readonly exactMaxRows: number,
  ) {}

  /** Creates the per-dimension partial HNSW index (pgvector needs a fixed dimension). */
  async prepare(dims: readonly number[]): Promise<void> {
    for (const dim of dims) {
      if (this.hnswDims.has(dim) || dim > HNSW_MAX_DIM || !Number.isInteger(dim)) continue;
      const { names } = this.context;
      const name = quoteIdent(`${names.prefix}_hnsw_${dim}`);
      // Under an advisory lock: two processes meeting a new dimension at once would otherwise race
      // inside CREATE INDEX IF NOT EXISTS (a duplicate pg_class entry). Built once per dimension;
      // on a large table the build scans it (writes wait meanwhile).
      await this.context.runner.transaction(
        'create hnsw index',
        async (sql) => {
          await sql.all('SELECT pg_advisory_xact_lock(hashtext($1))', [`engram-hnsw:${names.memories}:${dim}`]);
          await sql.run(
            `CREATE INDEX IF NOT EXISTS ${name} ON ${names.memories} USING hnsw ((embedding::vector(${dim})) vector_cosine_ops) WHERE embed_dim = ${dim}`,
            [],
          );
        },
        { idempotent: true },
      );
      this.hnswDims.add(dim);
    }
  }

  async search(query: DenseQuery, unit: Float32Array): Promise<DenseCandidate[]> {
    const rows = await this.context.runner.transaction(
      'denseSearch',
      (sql) => this.candidates(sql, query, unit.length),
      {
        idempotent: true,
      },
    );
    return scoreVectorRows(rows, unit, query.limit);
  }

  private async candidates(sql: SqlQueries, query: DenseQuery, dim: number): Promise<VectorRow[]> {
    const { dialect } = this.context;
    const fetch = Math.min(MAX_STORE_LIMIT, query.limit * 2 + 10);
    const params = dialect.params();
    const base = `${filterWhere(query.filter, dialect, params)} AND m.embed_model = ${params.add(query.model)} AND m.embed_dim = ${params.add(dim)} AND m.embedding IS NOT NULL`;
    const few = await sql.all<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${dialect.table} m WHERE ${base} LIMIT ${this.exactMaxRows + 1}) AS t`,
      [...params.values],
    );
    const exact = (few[0]?.n ?? 0) <= this.exactMaxRows || dim > HNSW_MAX_DIM;
    const q = params.add(toPgVectorLiteral(query.vector));
    const limit = params.add(fetch);
    const select = `SELECT m.id AS id, m.vector AS vector, m.embed_dim AS embed_dim FROM ${dialect.table} m WHERE ${base}`;
    // `embedding <=> …` does not match the index expression: the planner scans exactly.
    if (exact)
      return sql.all<VectorRow>(`${select} ORDER BY m.embedding <=> ${q}::vector, m.id LIMIT ${limit}`, params.values);
    await this.forceIndexScan(sql, fetch);
    // The partial index predicate needs the dimension as a literal (an integer).
    return sql.all<VectorRow>(
      `${select} AND m.embed_dim = ${dim} ORDER BY m.embedding::vector(${dim}) <=> ${q}::vector(${dim}) LIMIT ${limit}`,
      params.values,
    );
  }

  /**
   * The planner must take the HNSW index (its cost model prefers a scan + sort on small tables):
   * with sorting disabled, only an index that yields rows in distance order avoids the penalty.
   * Settings are local to the transaction.
   */
  private async forceIndexScan(sql: SqlQueries, fetch: number): Promise<void> {
    await sql.all(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.min(1000, Math.max(100, fetch * 2)))]);
    await sql.all(
      `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`,
      [],
    );
    await sql.run('SAVEPOINT engram_iter', []);
    // pgvector >= 0.8: keep scanning the graph until enough rows pass the filter.
    try {
      await sql.all(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`, []);
      await sql.run('RELEASE SAVEPOINT engram_iter', []);
    } catch {
      await sql.run('ROLLBACK TO SAVEPOINT engram_iter', []);
    }
  }
}
