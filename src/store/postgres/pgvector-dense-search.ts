import type { EmbeddingInfo } from '../../model/memory.js';
import type { SelectedMemory } from '../memory-from-columns.js';
import type { DenseCandidate, DenseQuery } from '../memory-store.js';
import { filterWhere } from '../sql/filter-where.js';
import type { SqlQueries } from '../sql/query-runner.js';
import type { PgDenseContext, PgDenseSearch, PgVectorColumn } from './pg-dense-search.js';
import { CUTOVER_MIN, pgvectorDenseSearch, toPgVectorLiteral, type PgVectorSearchTuning } from './pgvector-dense.js';
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
    const search = (sql: SqlQueries, oneTrip: boolean) =>
      pgvectorDenseSearch(sql, names, this.options.caps, { ...request, oneTrip }, tuning);
    // One server: no transaction, each statement stands alone (the HNSW walk is sent with its
    // SET LOCALs as one query). A search among a few given ids (recall scoring its lexical-only
    // candidates) is one exact statement everywhere. On Citus a walk with its settings in one
    // simple query fails on the worker (a nested distributed execution): there it keeps its
    // transaction, and the settings are propagated with citus.propagate_set_commands.
    const bounded = request.maxRows !== undefined && request.maxRows <= CUTOVER_MIN;
    const result =
      bounded || !this.options.caps.citus
        ? await runner.read('denseSearch', (sql) => search(sql, !bounded))
        : await runner.transaction('denseSearch', (sql) => search(sql, false), { idempotent: true });
    return result.candidates;
  }
}
