import { EngramError } from '../model/errors.js';
import type { MemoryStore } from './memory-store.js';
import type { PostgresStoreOptions } from './postgres/postgres-store-options.js';
import type { SqliteStoreOptions } from './sqlite/sqlite-store.js';

/** The default store when neither a spec nor `ENGRAM_STORE` is given. */
export const DEFAULT_STORE_PATH = './.engram/engram.db';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** Environment read for `ENGRAM_STORE` when `spec` is undefined or empty. @default process.env */
  env?: Record<string, string | undefined> | undefined;
  /** Path used when neither `spec` nor `ENGRAM_STORE` names a store. @default './.engram/engram.db' */
  defaultPath?: string | undefined;
  /** Extra options for the SQLite backend. */
  sqlite?: Omit<SqliteStoreOptions, 'path'> | undefined;
  /** Extra options for the PostgreSQL backend (pool size, schema, timeouts, vector mode). */
  postgres?: Omit<PostgresStoreOptions, 'connectionString' | 'pool'> | undefined;
}

/** Which backend a store spec names, and its target. */
export type StoreTarget =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; connectionString: string }
  | { kind: 'pglite'; dataDir: string };

/**
 * Parses a store spec without opening anything:
 * - `postgres://…` / `postgresql://…` -> PostgreSQL;
 * - `pglite:memory` / `pglite:<dir>` -> PostgreSQL on embedded PGlite (development, tests);
 * - `sqlite:<path>` / `<path>` / `:memory:` -> SQLite;
 * - any other `scheme://` -> EngramError('CONFIG_ERROR').
 * Undefined or empty falls back to `ENGRAM_STORE`, then to {@link DEFAULT_STORE_PATH}.
 */
export function resolveStoreSpec(spec: string | undefined, options: OpenStoreOptions = {}): StoreTarget {
  const env = options.env ?? process.env;
  const raw = (spec !== undefined && spec.trim() !== '' ? spec : env.ENGRAM_STORE)?.trim();
  const value = raw === undefined || raw === '' ? (options.defaultPath ?? DEFAULT_STORE_PATH) : raw;
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', connectionString: value };
  if (/^pglite:/i.test(value)) {
    const rest = value.slice('pglite:'.length).replace(/^\/\//, '');
    return { kind: 'pglite', dataDir: rest === '' || rest === 'memory' ? 'memory://' : rest };
  }
  if (/^sqlite:/i.test(value)) {
    const rest = value.slice('sqlite:'.length).replace(/^\/\//, '');
    if (rest === '') throw new EngramError('CONFIG_ERROR', 'sqlite: store spec needs a path, e.g. sqlite:./engram.db');
    return { kind: 'sqlite', path: rest };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
  if (scheme) {
    throw new EngramError(
      'CONFIG_ERROR',
      `unsupported store "${scheme[1]}://…": use postgres://…, postgresql://…, pglite:<dir>, a SQLite file path or :memory:`,
      { details: { scheme: scheme[1] } },
    );
  }
  return { kind: 'sqlite', path: value };
}

/**
 * Opens the store a spec names (see {@link resolveStoreSpec}), importing only that backend.
 * SQLite parent folders are created (by createSqliteStore). PostgreSQL connects (failing fast on
 * a bad URL or an unreachable server, with EngramError CONFIG_ERROR / STORE_ERROR / TIMEOUT) and
 * migrates.
 */
export async function openStore(spec: string | undefined, options: OpenStoreOptions = {}): Promise<MemoryStore> {
  const target = resolveStoreSpec(spec, options);
  switch (target.kind) {
    case 'postgres': {
      const { createPostgresStore } = await import('./postgres/create-postgres-store.js');
      return createPostgresStore({ ...options.postgres, connectionString: target.connectionString });
    }
    case 'pglite': {
      const { createPgliteStore } = await import('./postgres/pglite-store.js');
      return createPgliteStore({ ...options.postgres, dataDir: target.dataDir });
    }
    case 'sqlite': {
      const { createSqliteStore } = await import('./sqlite/sqlite-store.js');
      return createSqliteStore({ ...options.sqlite, path: target.path });
    }
  }
}
