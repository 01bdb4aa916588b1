import type pg from 'pg';
import type { PgTopologyChoice } from './citus-topology.js';
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
   * With pgvector, scopes of at most this many rows are scanned exactly; above it the HNSW index
   * picks the candidates (approximate, with the scope's filters inside the index scan; cosines
   * are always exact re-scores). @default the measured cut-over of pgvector-dense.ts, which grows
   * with the index size (about 2,300 rows of a 100k-row space for limit 10)
   */
  exactSearchMaxRows?: number | undefined;
  /**
   * HNSW parameters (bench/store-pgvector.ts measured them): `m` and `efConstruction` apply to
   * indexes built from now on; `efSearch` is the lower bound of `hnsw.ef_search` per search.
   * @default { m: 32, efConstruction: 128, efSearch: 200 }
   */
  hnsw?: { m?: number | undefined; efConstruction?: number | undefined; efSearch?: number | undefined } | undefined;
  /**
   * The server cancels a statement running longer than this (`statement_timeout`), and the call
   * fails with TIMEOUT (retryable): the bound on how long a request waits for a node that stopped
   * answering (a hung server, a Citus worker behind a partition; a refused connection fails at
   * once with STORE_UNAVAILABLE). Migrations and index builds are exempt. Applies to a pool the
   * store creates. @default no limit
   */
  statementTimeoutMs?: number | undefined;
  /**
   * Full-text queries leave out words held by more than this share of the memories (by the
   * planner's statistics; only on tables of 10,000 rows or more): `ts_rank` has no inverse
   * document frequency, so such words rank noise first and make the query rank most of the table
   * (bench/store-fulltext.ts). `1` keeps every word. @default 0.02
   */
  fullTextMaxShare?: number | undefined;
  /** Isolation level of write transactions. CockroachDB always runs SERIALIZABLE. @default 'read committed' */
  isolation?: PgIsolation | undefined;
  /** Retries of transient failures (40001, 40P01, "restart transaction", lost connections). */
  retry?: PgRetryOptions | undefined;
  /** Apply pending migrations when the store opens. @default true */
  migrate?: boolean | undefined;
  /**
   * Where the tables live: 'single-node', 'citus' (a coordinator: per-tenant tables distributed by
   * tenant on migrate, co-located; global tables reference tables), a custom `PgTopology`, or
   * 'auto': Citus when the server is a Citus coordinator, else one server. @default 'auto'
   */
  topology?: PgTopologyChoice | undefined;
}
