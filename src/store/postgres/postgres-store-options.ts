import type pg from 'pg';
import type { PgTopology } from './pg-topology.js';
import type { PgIsolation, PgRetryOptions } from './pg-transaction-runner.js';

/** How dense search is computed. */
export type PgVectorMode = 'auto' | 'app' | 'pgvector';

/** Options of {@link createPostgresStore}. Give `connectionString` or `pool`. */
export interface PostgresStoreOptions {
  /** `postgres://user:pass@host:port/db`. Ignored when `pool` is given. */
  connectionString?: string | undefined;
  /** A caller-owned pool (e.g. PGlite through its node-postgres adapter). Not ended by `close()`. */
  pool?: pg.Pool | undefined;
  /** Schema holding Engram's tables. Created if missing. @default 'public' */
  schema?: string | undefined;
  /** Pool size when the store creates the pool. @default 10 */
  maxConnections?: number | undefined;
  /** Give up connecting after this many ms (bad host, firewall). @default 5000 */
  connectTimeoutMs?: number | undefined;
  /**
   * Dense search: 'app' scores every candidate row in the application (exact, any PostgreSQL);
   * 'pgvector' requires the extension; 'auto' uses pgvector when the column is available.
   * @default 'auto'
   */
  vector?: PgVectorMode | undefined;
  /**
   * With pgvector, filters matching at most this many rows are scored exactly (sequential scan in
   * pgvector); above it the HNSW index picks the candidates, which is approximate: high recall
   * (ef_search ≥ 100, iterative scans for filters; the PGlite tests require ≥ 95% recall@10) but
   * not guaranteed exact. Returned cosines are always exact re-scores. @default 20000
   */
  exactSearchMaxRows?: number | undefined;
  /** Isolation level of write transactions. CockroachDB always runs SERIALIZABLE. @default 'read committed' */
  isolation?: PgIsolation | undefined;
  /** Retries of transient failures (40001, 40P01, "restart transaction", lost connections). */
  retry?: PgRetryOptions | undefined;
  /** Apply pending migrations when the store opens. @default true */
  migrate?: boolean | undefined;
  /** Where the tables live (one server, or a distributed PostgreSQL); runs its DDL on migrate. @default SINGLE_NODE */
  topology?: PgTopology | undefined;
}
