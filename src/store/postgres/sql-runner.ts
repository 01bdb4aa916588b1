/** What a statement returns: its rows and, for writes, how many rows it touched. */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number | null;
}

/**
 * The one thing the PostgreSQL-specific modules (pgvector, Citus) need from the engine: run a
 * statement with `$1 …` parameters on one connection. A `pg.PoolClient` (or `pg.Pool`, for
 * statements that need no session state) satisfies it as is. Functions that set
 * transaction-local settings (`SET LOCAL`) say so and must be given a connection inside a
 * transaction.
 */
export interface SqlRunner {
  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<SqlResult<R>>;
}

/** `'text'` as an SQL string literal (standard_conforming_strings, the default since 9.1). */
export function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
