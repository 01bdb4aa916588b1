/**
 * A throwaway PostgreSQL server with one database for tests and benches (see
 * test/support/pg-server.ts for binaries, users, temp dirs and cleanup).
 */
import { createPgDatabase, pgExec, startPgServer, type PgServer } from './pg-server.js';

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url: string;
  port: number;
  database: string;
  /** The server process (stop / start it for fault tests). */
  server: PgServer;
  /** Creates another empty database on the same server (with the same extensions) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and removes its files. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startPgCluster}. */
export interface PgClusterOptions {
  /** @default 'engram_test' */
  database?: string | undefined;
  /**
   * Extensions to `CREATE EXTENSION` in every database made here (e.g. `['vector']`); they must
   * be installed on the machine (test/support/pg-extensions.ts says which are).
   */
  extensions?: readonly string[] | undefined;
  /** Extra server settings. */
  settings?: Record<string, string | number> | undefined;
  /** Start from a copy of this saved data dir (which holds `database` already) instead of a fresh one. */
  from?: string | undefined;
}

/** Starts a fresh server and creates `database` in it. Takes about 0.5–1.5 s. */
export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const database = options.database ?? 'engram_test';
  const server = await startPgServer({ settings: options.settings, from: options.from });
  const createDatabase = async (name: string): Promise<string> => {
    const url = await createPgDatabase(server, name);
    for (const ext of options.extensions ?? []) await pgExec(url, `CREATE EXTENSION IF NOT EXISTS "${ext}"`);
    return url;
  };
  try {
    const url = options.from === undefined ? await createDatabase(database) : server.url(database);
    return { url, port: server.port, database, server, createDatabase, stop: () => server.destroy() };
  } catch (error) {
    await server.destroy();
    throw error;
  }
}
