import type { EmbeddingInfo } from '../../model/memory.js';
import type { DenseCandidate, DenseQuery } from '../memory-store.js';
import { filterWhere } from '../sql/filter-where.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type { QueryRunner, SqlQueries } from '../sql/query-runner.js';
import type { SqlDialect } from '../sql/sql-dialect.js';
import { scoreVectorRows, vectorScanSql, type VectorRow } from '../sql/vector-rows.js';
import type { PgNames } from './pg-names.js';
import type { DenseIndexReport } from './pgvector-indexes.js';

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
  /**
   * Before rows with vectors of these embedding spaces are written (pgvector: the space's HNSW
   * index), and by migrate for every stored space. Reports what it checked or built (spaces
   * already prepared by this process are skipped).
   */
  prepare(spaces: readonly EmbeddingInfo[]): Promise<DenseIndexReport[]>;
  /** Candidates of a validated query; `unit` is the query scaled to unit length. */
  search(query: DenseQuery, unit: Float32Array): Promise<DenseCandidate[]>;
}

/** The candidates with their whole rows (`memory`, `updatedAt`), read on the same connection. */
async function withRows(
  sql: SqlQueries,
  context: PgDenseContext,
  tenant: string,
  found: DenseCandidate[],
): Promise<DenseCandidate[]> {
  if (found.length === 0) return found;
  const { dialect } = context;
  const rows = await sql.all<SelectedMemory>(
    `SELECT ${MEMORY_SELECT} FROM ${dialect.table} m WHERE m.tenant = $1 AND m.id = ANY($2::text[])`,
    [tenant, found.map((c) => c.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, dialect.toMemory(r)]));
  return found.map((c) => {
    const memory = byId.get(c.id);
    return memory ? { ...c, memory, updatedAt: memory.updatedAt } : c;
  });
}

/** Exact on any PostgreSQL: every matching row of the model is read and scored in the application. */
export function appSideDenseSearch(context: PgDenseContext): PgDenseSearch {
  const { runner, dialect } = context;
  return {
    name: 'app',
    column: null,
    prepare: () => Promise.resolve([]),
    async search(query, unit) {
      const params = dialect.params();
      const sql = vectorScanSql(
        dialect.table,
        filterWhere(query.filter, dialect, params),
        query.model,
        unit.length,
        params,
      );
      return runner.read('denseSearch', async (q) => {
        const found = scoreVectorRows(await q.all<VectorRow>(sql, params.values), unit, query.limit);
        // The scan reads every vector of the scope, so the rows of the few kept are a second statement.
        return query.withRows ? withRows(q, context, query.filter.scope.tenant, found) : found;
      });
    },
  };
}
