export { PostgresStore } from './postgres-store.js';
export { createPostgresStore } from './create-postgres-store.js';
export type { PostgresStoreOptions, PgVectorMode } from './postgres-store-options.js';
export { SINGLE_NODE, type PgTopology } from './pg-topology.js';
export { appSideDenseSearch, type PgDenseContext, type PgDenseSearch, type PgVectorColumn } from './pg-dense-search.js';
export { PgVectorDenseSearch } from './pgvector-dense-search.js';
export { PgQueryRunner } from './pg-query-runner.js';
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
