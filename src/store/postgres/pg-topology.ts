import type { SqlQueries } from '../sql/query-runner.js';
import type { PgNames } from './pg-names.js';

/** Where one table of the schema was placed by a topology's DDL. */
export interface PgTablePlacement {
  /** Unqualified table name. */
  table: string;
  /** 'distributed' (sharded by tenant), 'reference' (a copy on every node), 'local' (one server). */
  kind: 'distributed' | 'reference' | 'local';
  /** 'placed' by this migrate, 'already' placed so before. */
  state: 'placed' | 'already';
}

/**
 * Where the tables of one Engram schema live. The default is one server; a distributed
 * PostgreSQL (Citus) is another topology of the same store: the engine's queries already carry
 * the tenant key first in every WHERE (`filterWhere`, and `tenant = … AND id …` for writes), so
 * a table distributed by `tenant` routes each call to one shard.
 */
export interface PgTopology {
  /** Short name, e.g. 'single-node', 'citus'. */
  readonly name: string;
  /**
   * How a batch of records is inserted. 'unnest': one statement per chunk over column arrays
   * (one parameter per column, the fastest on one server). 'values': one multi-row
   * `INSERT … VALUES` per tenant and chunk — on Citus the router plans it for one shard and a
   * duplicate key stays 23505 (CONFLICT), where `INSERT … SELECT FROM unnest(…)` is pulled to the
   * coordinator and reports it as XX000.
   */
  readonly batchInsert: 'unnest' | 'values';
  /**
   * Runs after the schema migrations, in the same transaction and under the same advisory lock:
   * the place for distribution DDL (distributing every table of `names.tenantTables` by
   * `tenant`, co-located, and making `names.globalTables` reference tables). Must be idempotent:
   * it runs on every migrate. A failure rolls the whole migration back (MIGRATION_ERROR).
   */
  afterMigrations(sql: SqlQueries, names: PgNames): Promise<PgTablePlacement[]>;
}

/** One PostgreSQL server (or PGlite): nothing to distribute. */
export const SINGLE_NODE: PgTopology = {
  name: 'single-node',
  batchInsert: 'unnest',
  afterMigrations: () => Promise.resolve([]),
};
