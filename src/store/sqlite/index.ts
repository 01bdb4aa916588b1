export { createSqliteStore, SqliteStore, type SqliteStoreOptions, type VectorPartitionKey } from './sqlite-store.js';
export { applySqliteMigrations, SQLITE_MIGRATIONS, type SqliteMigration } from './migrations.js';
