import type pg from 'pg';
import type { PgNames } from './pg-names.js';

/**
 * Where the tables of one Engram schema live. The default is one server; a distributed
 * PostgreSQL (Citus) is another topology of the same store: the engine's queries already carry
 * the tenant key first in every WHERE (`filterWhere`, and `tenant = … AND id …` for writes), so
 * a table distributed by `tenant` routes each call to one shard.
 */
export interface PgTopology {
  /** Short name, e.g. 'single-node'. */
  readonly name: string;
  /**
   * Runs after the schema migrations, in the same transaction and under the same advisory lock:
   * the place for distribution DDL (e.g. distributing every table of `names.tenantTables` by
   * `tenant`, co-located, and making `names.globalTables` reference tables). Must be idempotent:
   * it runs on every migrate. A failure rolls the whole migration back (MIGRATION_ERROR).
   */
  afterMigrations(client: pg.PoolClient, names: PgNames): Promise<void>;
}

/** One PostgreSQL server (or PGlite): nothing to distribute. */
export const SINGLE_NODE: PgTopology = {
  name: 'single-node',
  afterMigrations: () => Promise.resolve(),
};
