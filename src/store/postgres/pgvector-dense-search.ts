import type { EmbeddingInfo } from '../../model/memory.js';
import type { SelectedMemory } from '../memory-from-columns.js';
import type { DenseCandidate, DenseQuery } from '../memory-store.js';
import { filterWhere } from '../sql/filter-where.js';
import type { PgDenseContext, PgDenseSearch, PgVectorColumn } from './pg-dense-search.js';
import { pgvectorDenseSearch, toPgVectorLiteral, type PgVectorSearchTuning } from './pgvector-dense.js';
import {
  ensureDenseIndex,
  type DenseIndexReport,
  type HnswBuildOptions,
  type PgVectorCapabilities,
} from './pgvector-indexes.js';
import { ScopeSizeCache } from './scope-size-cache.js';

/** The `embedding vector` column pgvector searches (added by the migrations when the extension is there). */
export const PGVECTOR_COLUMN: PgVectorColumn = {
  name: 'embedding',
  sql: (reference) => `${reference}::vector`,
  value: toPgVectorLiteral,
};

/** Options of {@link PgVectorDenseSearch}. */
export interface PgVectorDenseOptions {
  /** What the server offers (pgvector version, iterative scans, Citus). */
  caps: PgVectorCapabilities;
  /** Search tuning (cut-over, over-fetch, ef_search); defaults from bench/store-pgvector.ts. */
  tuning?: PgVectorSearchTuning | undefined;
  /** HNSW build parameters. @default HNSW_BUILD_DEFAULTS (m 32, ef_construction 128) */
  build?: HnswBuildOptions | undefined;
}

/**
 * Dense search pushed down to pgvector (pgvector-dense.ts): each embedding space has its own
 * partial HNSW index (pgvector-indexes.ts), built before the first rows of the space are
 * written; small scopes are scanned exactly; every candidate is re-scored with the cosine all
 * backends share, so scores equal app-side scoring.
 */
export class PgVectorDenseSearch implements PgDenseSearch {
  readonly name = 'pgvector';
  readonly column = PGVECTOR_COLUMN;
  private readonly indexed = new Set<string>();
  private readonly scopeSizes = new ScopeSizeCache();

  constructor(
    private readonly context: PgDenseContext,
    private readonly options: PgVectorDenseOptions,
  ) {}

  async prepare(spaces: readonly EmbeddingInfo[]): Promise<DenseIndexReport[]> {
    const reports: DenseIndexReport[] = [];
    for (const { model, dim } of spaces) {
      const key = `${model}\u0000${dim}`;
      if (this.indexed.has(key)) continue;
      const report = await this.context.runner.transaction(
        'create hnsw index',
        async (sql) => {
          await sql.run('SET LOCAL statement_timeout = 0', []); // an index build scans the table
          return ensureDenseIndex(sql, this.context.names, { model, dim }, this.options.build);
        },
        { idempotent: true },
      );
      reports.push(report);
      this.indexed.add(key);
    }
    return reports;
  }

  async search(query: DenseQuery, unit: Float32Array): Promise<DenseCandidate[]> {
    const { dialect, names, runner } = this.context;
    const params = dialect.params();
    const where = filterWhere(query.filter, dialect, params);
    // The cut-over counts the scope regardless of its validity instant (usually "now": a new one each query).
    const sizeParams = dialect.params();
    const sizeScope =
      query.filter.validAt === undefined
        ? undefined
        : {
            where: filterWhere({ ...query.filter, validAt: undefined }, dialect, sizeParams),
            params: sizeParams.values,
          };
    const request = {
      where,
      params: params.values,
      sizeScope,
      space: { model: query.model, dim: unit.length },
      vector: query.vector,
      limit: query.limit,
      maxRows: query.filter.ids === undefined ? undefined : new Set(query.filter.ids).size,
      toMemory: query.withRows ? (row: SelectedMemory) => dialect.toMemory(row) : undefined,
    };
    const tuning = { ...this.options.tuning, scopeSizes: this.scopeSizes };
    // No transaction around the search: each statement stands alone, and only an HNSW walk needs
    // one for its SET LOCALs. On one server the walk is sent with them as one query; on Citus that
    // form fails on the worker (a nested distributed execution), so there the walk opens its own
    // (BEGIN and the settings in one trip, the walk, COMMIT; the settings are propagated with
    // citus.propagate_set_commands). A search among a few given ids (recall scoring its
    // lexical-only candidates) and a small scope's exact scan are one statement everywhere.
    const transaction = this.options.caps.citus ? 'own' : 'one-query';
    const result = await runner.read('denseSearch', (sql) =>
      pgvectorDenseSearch(sql, names, this.options.caps, { ...request, transaction }, tuning),
    );
    return result.candidates;
  }
}
