export { createPostgresStore, PostgresStore, type PostgresStoreOptions, type PgVectorMode } from './postgres-store.js';
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
