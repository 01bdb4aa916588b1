export { PostgresStore, type PgStoreMigrationReport } from './postgres-store.js';
export { createPostgresStore } from './create-postgres-store.js';
export type { PostgresStoreOptions, PgVectorMode } from './postgres-store-options.js';
export { SINGLE_NODE, type PgTablePlacement, type PgTopology } from './pg-topology.js';
export {
  citusTopology,
  resolvePgTopology,
  type CitusTopologyOptions,
  type PgTopologyChoice,
} from './citus-topology.js';
export {
  detectCitus,
  distributeSchema,
  planCitusDistribution,
  type CitusStatus,
  type CitusTablePlan,
  type CitusTableReport,
  type DistributeOptions,
} from './citus-distribution.js';
export { appSideDenseSearch, type PgDenseContext, type PgDenseSearch, type PgVectorColumn } from './pg-dense-search.js';
export { PgVectorDenseSearch } from './pgvector-dense-search.js';
export { clientQueries, PgQueryRunner, type PgQueryable } from './pg-query-runner.js';
export {
  denseIndexName,
  detectPgVector,
  ensureDenseIndex,
  ensurePgVectorExtension,
  HNSW_BUILD_DEFAULTS,
  migrateDenseIndexes,
  type DenseIndexReport,
  type EmbeddingSpace,
  type HnswBuildOptions,
  type PgVectorCapabilities,
  type PgVectorExtensionReport,
} from './pgvector-indexes.js';
export { DEFAULT_EF_SEARCH, pgvectorDenseSearch, type PgVectorSearchTuning } from './pgvector-dense.js';
export { ScopeSizeCache } from './scope-size-cache.js';
export { createPgliteStore, type PgliteStoreOptions } from './pglite-store.js';
export {
  applyPgMigrations,
  appliedPgMigrations,
  PG_MIGRATIONS,
  type ApplyPgMigrationsOptions,
  type PgMigration,
  type PgMigrationReport,
} from './pg-migrations.js';
export { buildTsQuery, fullTextDocument } from './pg-full-text.js';
export { isConnectionError, isSerializationError, toEngramError as pgErrorToEngramError } from './pg-errors.js';
export { runPg, type PgIsolation, type PgRetryOptions, type RunPgOptions } from './pg-transaction-runner.js';
