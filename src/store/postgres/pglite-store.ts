import type { Extensions } from '@electric-sql/pglite';
import pg from 'pg';
import { EngramError } from '../../model/errors.js';
import { createPostgresStore } from './create-postgres-store.js';
import type { PostgresStore } from './postgres-store.js';
import type { PostgresStoreOptions } from './postgres-store-options.js';

/** Options of {@link createPgliteStore}. */
export interface PgliteStoreOptions extends Omit<PostgresStoreOptions, 'connectionString' | 'pool' | 'maxConnections'> {
  /** PGlite data directory, or `memory://` for an in-memory database. @default 'memory://' */
  dataDir?: string | undefined;
  /** Load the pgvector extension (`@electric-sql/pglite-pgvector`). @default true */
  pgvector?: boolean | undefined;
}

/**
 * Opens a {@link PostgresStore} on an embedded PGlite database through PGlite's node-postgres
 * adapter: the exact same SQL as a real server, including the pgvector / HNSW path. PGlite is
 * single-connection, so the pool has one client. `close()` also closes the PGlite instance.
 */
export async function createPgliteStore(options: PgliteStoreOptions = {}): Promise<PostgresStore> {
  let PGlite: typeof import('@electric-sql/pglite').PGlite;
  let createPgConfig: typeof import('@electric-sql/pglite/node-postgres').createPgConfig;
  try {
    ({ PGlite } = await import('@electric-sql/pglite'));
    ({ createPgConfig } = await import('@electric-sql/pglite/node-postgres'));
  } catch (cause) {
    throw new EngramError('CONFIG_ERROR', 'PGlite is not installed (npm install @electric-sql/pglite)', { cause });
  }
  const extensions: Extensions = {};
  if (options.pgvector !== false) {
    try {
      const { vector } = await import('@electric-sql/pglite-pgvector');
      extensions.vector = vector;
    } catch (cause) {
      throw new EngramError(
        'CONFIG_ERROR',
        'pgvector for PGlite is not installed (npm install @electric-sql/pglite-pgvector)',
        { cause },
      );
    }
  }
  const db = await PGlite.create(options.dataDir ?? 'memory://', { extensions });
  // The adapter object is what node-postgres' Pool expects at run time; its declared type is narrower.
  const pool = new pg.Pool(createPgConfig(db) as unknown as pg.PoolConfig);
  pool.options.max = 1;
  let store: PostgresStore;
  try {
    store = await createPostgresStore({
      ...options,
      pool,
      vector: options.vector ?? (options.pgvector === false ? 'app' : 'auto'),
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw error;
  }
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await pool.end().catch(() => undefined);
    await db.close();
  };
  return store;
}
