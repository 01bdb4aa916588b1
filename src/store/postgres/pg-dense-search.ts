import type { DenseCandidate, DenseQuery } from '../memory-store.js';
import { filterWhere } from '../sql/filter-where.js';
import type { QueryRunner } from '../sql/query-runner.js';
import type { SqlDialect } from '../sql/sql-dialect.js';
import { scoreVectorRows, vectorScanSql, type VectorRow } from '../sql/vector-rows.js';
import type { PgNames } from './pg-names.js';

/** What a dense-search strategy of the PostgreSQL store may use. */
export interface PgDenseContext {
  runner: QueryRunner;
  dialect: SqlDialect;
  names: PgNames;
}

/** A column written beside the float32 bytes for a strategy's own index (pgvector: `embedding`). */
export interface PgVectorColumn {
  name: string;
  /** The SQL reading a bound or selected value into the column's type, e.g. `$3::vector`. */
  sql(reference: string): string;
  /** The value bound for a vector. */
  value(vector: Float32Array): unknown;
}

/**
 * How the PostgreSQL store finds dense candidates, and what it writes for that. Every strategy
 * returns the exact unit-vector cosine (`src/vector/unit-cosine.ts`) of its candidates, best
 * first, ties by id, so strategies differ only in which candidates they find.
 */
export interface PgDenseSearch {
  /** 'app' or 'pgvector'. */
  readonly name: string;
  /** Written on insert and on a vector update when not null. */
  readonly column: PgVectorColumn | null;
  /** Before rows with vectors of these dimensions are written (e.g. a per-dimension index). */
  prepare(dims: readonly number[]): Promise<void>;
  /** Candidates of a validated query; `unit` is the query scaled to unit length. */
  search(query: DenseQuery, unit: Float32Array): Promise<DenseCandidate[]>;
}

/** Exact on any PostgreSQL: every matching row of the model is read and scored in the application. */
export function appSideDenseSearch(context: PgDenseContext): PgDenseSearch {
  const { runner, dialect } = context;
  return {
    name: 'app',
    column: null,
    prepare: () => Promise.resolve(),
    async search(query, unit) {
      const params = dialect.params();
      const sql = vectorScanSql(
        dialect.table,
        filterWhere(query.filter, dialect, params),
        query.model,
        unit.length,
        params,
      );
      const rows = await runner.read('denseSearch', (q) => q.all<VectorRow>(sql, params.values));
      return scoreVectorRows(rows, unit, query.limit);
    },
  };
}
