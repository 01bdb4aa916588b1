import type { PgStoreMigrationReport } from './postgres-store.js';

/** What one placement means, in words. */
function placementLine(p: PgStoreMigrationReport['placements'][number]): string {
  const where =
    p.kind === 'distributed' ? 'distributed by tenant' : p.kind === 'reference' ? 'reference table' : 'local';
  return `  ${p.table}: ${where} (${p.state === 'placed' ? 'placed now' : 'already'})`;
}

/**
 * `engram migrate`'s account of a PostgreSQL migration, one line per fact: the schema version,
 * what became of pgvector (created, present, or why not and how to get it), the dense search
 * path and each embedding space's HNSW index, and where the topology placed the tables.
 */
export function pgMigrationSummary(report: PgStoreMigrationReport): string[] {
  const lines: string[] = [];
  lines.push(
    report.applied.length > 0
      ? `postgres: applied migration${report.applied.length > 1 ? 's' : ''} ${report.applied.join(', ')} (schema version ${report.version})`
      : `postgres schema is up to date (version ${report.version})`,
  );
  lines.push(
    report.extension === null
      ? 'pgvector: not used (vector: app)'
      : `pgvector: ${report.extension.message}${report.pgvector ? '' : ' — dense search scores rows in the application'}`,
  );
  lines.push(
    report.denseSearch === 'pgvector'
      ? 'dense search: pgvector HNSW per embedding space, exact scan for small scopes'
      : 'dense search: exact, every matching row scored in the application',
  );
  for (const index of report.indexes) lines.push(`  ${index.message}`);
  if (report.topology === 'single-node') lines.push('topology: one server');
  else {
    lines.push(`topology: ${report.topology}`);
    for (const p of report.placements) lines.push(placementLine(p));
  }
  return lines;
}
