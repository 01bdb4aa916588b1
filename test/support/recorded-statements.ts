/**
 * What a store sends to PostgreSQL, for tests that check every statement (routing on Citus):
 * a pool whose clients record each statement with its parameters, the statements of one tenant's
 * calls over Engram's tables, and the coordinator's plan of a statement.
 */
import pg from 'pg';

/** One statement as sent. */
export interface RecordedStatement {
  sql: string;
  params: unknown[];
}

/** A pool whose clients push every statement they send onto `log`. */
export function recordingPool(url: string, log: RecordedStatement[]): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string') log.push({ sql: args[0], params: Array.isArray(args[1]) ? args[1] : [] });
      return original(...args);
    };
  });
  return pool;
}

/**
 * The distinct statements over Engram's tables (`engram_` names) that data calls sent: no DDL,
 * catalog lookups, locks, session settings or transaction control.
 */
export function dataStatements(log: readonly RecordedStatement[]): RecordedStatement[] {
  const seen = new Set<string>();
  // A simple query of session settings and then a statement (values inlined) counts as that statement.
  const withoutSettings = log.map((s) => ({ ...s, sql: s.sql.trim().replace(/^(SET LOCAL [^;]*;\s*)+/i, '') }));
  return withoutSettings.filter((s) => {
    const sql = s.sql;
    if (!/engram_/.test(sql) || /^(CREATE|ALTER|DROP|SET|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(sql))
      return false;
    if (/pg_attribute|pg_index|pg_class|pg_advisory|pg_extension|pg_dist_/.test(sql)) return false;
    if (seen.has(sql)) return false;
    seen.add(sql);
    return true;
  });
}

/** `EXPLAIN (COSTS OFF)` of a statement with its parameters, as one text. */
export async function explain(pool: pg.Pool, statement: RecordedStatement): Promise<string> {
  const rows = (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${statement.sql}`, statement.params))
    .rows;
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}
