import { EngramError } from '../../model/errors.js';
import type { SqlQueries } from '../sql/query-runner.js';
import { detectCitus, distributeSchema, type CitusTableReport } from './citus-distribution.js';
import { tableName, type PgNames } from './pg-names.js';
import { SINGLE_NODE, type PgTablePlacement, type PgTopology } from './pg-topology.js';

/** Options of {@link citusTopology}. */
export interface CitusTopologyOptions {
  /** Shards of the co-location group, fixed when the first table is distributed. @default citus.shard_count (32) */
  shardCount?: number | undefined;
}

/** Throws CONFIG_ERROR unless this server is a Citus coordinator, saying what it is instead. */
async function assertCoordinator(sql: SqlQueries): Promise<void> {
  const status = await detectCitus(sql);
  if (status.coordinator) return;
  throw new EngramError(
    'CONFIG_ERROR',
    status.installed
      ? 'the Citus topology needs a coordinator: this node is not one (connect to the coordinator, with its workers added)'
      : 'the Citus topology needs the citus extension on this server (shared_preload_libraries = citus, CREATE EXTENSION citus)',
    { details: { citus: status.version } },
  );
}

/** What stands in the way of placing one Engram table as its role requires. */
function misplaced(report: CitusTableReport, perTenant: boolean): string | null {
  const want = perTenant ? 'distributed' : 'reference';
  if (report.state === 'blocked') return `${report.table}: ${report.blockers.join('; ')}`;
  if (report.state === 'mismatch') return `${report.table}: already placed, but not as a ${want} table`;
  if (report.kind !== want) return `${report.table}: should be ${want}, has ${perTenant ? 'no' : 'a'} tenant column`;
  return null;
}

/**
 * A Citus coordinator: every per-tenant table of the schema (`names.tenantTables`) distributed
 * by `tenant`, all co-located (a tenant's rows of every table on one node, so each per-tenant
 * call is routed to one shard), and the global tables (`names.globalTables`) reference tables.
 * Placement runs on every migrate, in the migration's transaction, and is idempotent; tables of
 * the schema that are not Engram's are left alone. An Engram table that cannot be placed as its
 * role requires fails the migration (MIGRATION_ERROR), naming what blocks it. Batch inserts are
 * multi-row VALUES per tenant (see {@link PgTopology.batchInsert}).
 */
export function citusTopology(options: CitusTopologyOptions = {}): PgTopology {
  return {
    name: 'citus',
    batchInsert: 'values',
    async afterMigrations(sql: SqlQueries, names: PgNames): Promise<PgTablePlacement[]> {
      await assertCoordinator(sql);
      const tenant = names.tenantTables.map((t) => tableName(names, t));
      const global = names.globalTables.map((t) => tableName(names, t));
      const reports = await distributeSchema(sql, names.schemaName, {
        shardCount: options.shardCount,
        tables: [...tenant, ...global],
      });
      const problems = reports.flatMap((r) => misplaced(r, tenant.includes(r.table)) ?? []);
      if (problems.length > 0) {
        throw new EngramError('MIGRATION_ERROR', `cannot distribute the Engram schema: ${problems.join(' | ')}`, {
          details: { problems },
        });
      }
      return reports.map((r) => ({ table: r.table, kind: r.kind, state: r.state === 'placed' ? 'placed' : 'already' }));
    },
  };
}

/** Which topology to use: a given one, 'single-node', 'citus', or 'auto' (Citus when this is a coordinator). */
export type PgTopologyChoice = PgTopology | 'auto' | 'single-node' | 'citus';

/**
 * Resolves {@link PgTopologyChoice}: 'auto' is Citus when the server is a Citus coordinator
 * (`citus_is_coordinator()`: the citus extension with nodes registered), else one server.
 */
export async function resolvePgTopology(sql: SqlQueries, choice: PgTopologyChoice = 'auto'): Promise<PgTopology> {
  if (typeof choice !== 'string') return choice;
  if (choice === 'citus') {
    await assertCoordinator(sql);
    return citusTopology();
  }
  if (choice === 'single-node') return SINGLE_NODE;
  return (await detectCitus(sql)).coordinator ? citusTopology() : SINGLE_NODE;
}
