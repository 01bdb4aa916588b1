import { EngramError } from '../model/errors.js';
import { openStore, resolveStoreSpec, type OpenStoreOptions } from './open-store.js';

/** Options of {@link migrateStore}. */
export interface MigrateStoreOptions extends OpenStoreOptions {
  /** Distribute the schema on a Citus coordinator (without it a coordinator is detected). @default false */
  citus?: boolean | undefined;
}

/** What {@link migrateStore} did. */
export interface StoreMigrationSummary {
  /** 'sqlite' or 'postgres'. */
  backend: string;
  /** One line per fact, for `engram migrate` to print. */
  lines: string[];
  /** The backend's full report (PostgreSQL: `PgStoreMigrationReport`), for `--json`. */
  report: unknown;
}

/**
 * `engram migrate`: opens the store a spec names without migrating on open, applies pending
 * migrations, and says what it did — on PostgreSQL also what became of pgvector and its
 * indexes (and why not, when it cannot) and, on a Citus coordinator, where each table was placed.
 * `citus` on a store that is not PostgreSQL is CONFIG_ERROR.
 */
export async function migrateStore(
  spec: string | undefined,
  options: MigrateStoreOptions = {},
): Promise<StoreMigrationSummary> {
  const target = resolveStoreSpec(spec, options);
  if (options.citus && target.kind === 'sqlite') {
    throw new EngramError('CONFIG_ERROR', '--citus needs a PostgreSQL store (postgres://… of the coordinator)');
  }
  if (target.kind === 'sqlite') {
    const store = await openStore(spec, options);
    try {
      await store.migrate();
      return { backend: 'sqlite', lines: ['sqlite schema is up to date'], report: null };
    } finally {
      await store.close();
    }
  }
  const postgres = {
    ...options.postgres,
    migrate: false,
    topology: options.citus ? ('citus' as const) : options.postgres?.topology,
  };
  const store = await openStore(spec, { ...options, postgres });
  try {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    const { pgMigrationSummary } = await import('./postgres/pg-migration-summary.js');
    if (!(store instanceof PostgresStore)) throw new EngramError('INTERNAL', `unexpected store kind ${store.kind}`);
    const report = await store.migrateWithReport();
    return { backend: 'postgres', lines: pgMigrationSummary(report), report };
  } finally {
    await store.close();
  }
}
