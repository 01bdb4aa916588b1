import pg from 'pg';
import { EngramError } from '../../model/errors.js';
import { isConnectTimeout, toEngramError } from './pg-errors.js';
import { PostgresStore } from './postgres-store.js';
import type { PostgresStoreOptions } from './postgres-store-options.js';

function parseConnectionString(connectionString: string): void {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch (cause) {
    throw new EngramError(
      'CONFIG_ERROR',
      'invalid PostgreSQL connection string (expected postgres://user:pass@host:port/db)',
      {
        cause,
      },
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new EngramError(
      'CONFIG_ERROR',
      `invalid PostgreSQL URL scheme ${url.protocol} (expected postgres:// or postgresql://)`,
    );
  }
  if (url.port !== '' && !/^\d+$/.test(url.port)) {
    throw new EngramError('CONFIG_ERROR', 'invalid port in PostgreSQL URL');
  }
}

/**
 * Opens a PostgreSQL store: checks the URL, connects once (failing fast with
 * EngramError('STORE_ERROR', details.pgCode = ECONNREFUSED / 28P01 / 3D000 …) or
 * ('TIMEOUT') after `connectTimeoutMs`), and applies migrations unless `migrate: false`.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  let pool: pg.Pool;
  let owns: boolean;
  if (options.pool) {
    pool = options.pool;
    owns = false;
  } else {
    if (typeof options.connectionString !== 'string' || options.connectionString === '') {
      throw new EngramError('CONFIG_ERROR', 'createPostgresStore needs a connectionString or a pool');
    }
    parseConnectionString(options.connectionString);
    pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
    });
    owns = true;
  }
  // Idle clients whose server connection dies emit 'error' on the pool; without a listener that
  // would crash the process. The pool has already dropped the client; the next query reconnects.
  // One listener per pool, however many stores share it.
  if (pool.listenerCount('error') === 0) pool.on('error', () => undefined);
  const store = new PostgresStore(pool, owns, options);
  try {
    const client = await pool.connect();
    try {
      await client.query('SELECT 1');
    } finally {
      client.release();
    }
    if (options.migrate !== false) await store.migrateWithReport();
    else await store.detectPgVector();
  } catch (error) {
    if (owns) await pool.end().catch(() => undefined);
    if (isConnectTimeout(error) || (error instanceof EngramError && isConnectTimeout(error.cause))) {
      throw new EngramError(
        'TIMEOUT',
        `could not connect to PostgreSQL within ${options.connectTimeoutMs ?? 5_000} ms`,
        {
          cause: error,
          isRetryable: true,
          details: { pgCode: 'CONNECT_TIMEOUT' },
        },
      );
    }
    throw toEngramError(error, 'connect');
  }
  return store;
}
