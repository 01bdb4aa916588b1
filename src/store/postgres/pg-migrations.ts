import type pg from 'pg';
import { EngramError } from '../../model/errors.js';
import { pgNames, quoteIdent, type PgNames } from './pg-names.js';
import { SINGLE_NODE, type PgTopology } from './pg-topology.js';

/** One schema step: applied once, in its own transaction, recorded in `engram_schema_migrations`. */
export interface PgMigration {
  version: number;
  name: string;
  /** The DDL for a schema (names already qualified). */
  sql: (names: PgNames) => string;
}

/**
 * The schema, oldest first. Never edit a released migration; append a new one.
 *
 * `engram_memories` is keyed by tenant first: the primary key is (tenant, id) and every index
 * leads with tenant (then user), so the table can be hash-partitioned on `tenant`, or
 * distributed on it (Citus `create_distributed_table('engram_memories', 'tenant')`; CockroachDB
 * ranges split along the same prefix). Timestamps are ISO-8601 text in the "C" collation (they
 * round-trip byte-for-byte and sort like the SQLite backend); ids too, so ties break identically.
 * Vectors are little-endian float32 `bytea` with `embed_model` / `embed_dim`: app-side exact
 * cosine works on any PostgreSQL. The pgvector column `embedding` is NOT part of a migration: it
 * is added (and backfilled) by {@link ensurePgVector} whenever the extension is available, so a
 * database that gains pgvector later starts using it.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'memories',
    sql: (n) => `
CREATE TABLE ${n.memories} (
  tenant text COLLATE "C" NOT NULL,
  user_id text COLLATE "C",
  id text COLLATE "C" NOT NULL,
  agent_id text COLLATE "C",
  session_id text COLLATE "C",
  collection text COLLATE "C",
  type text NOT NULL,
  key text COLLATE "C",
  tags text[] NOT NULL DEFAULT '{}',
  level text,
  summary text,
  background text,
  sources jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}',
  text text NOT NULL,
  stated_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  status text NOT NULL DEFAULT 'activated',
  use_count integer NOT NULL DEFAULT 0,
  last_used_at text COLLATE "C",
  embed_model text COLLATE "C",
  embed_dim integer,
  vector bytea,
  fts tsvector NOT NULL,
  PRIMARY KEY (tenant, id)
);
CREATE INDEX ${n.prefix}_user ON ${n.memories} (tenant, user_id, created_at, id);
CREATE INDEX ${n.prefix}_created ON ${n.memories} (tenant, created_at, id);
CREATE INDEX ${n.prefix}_updated ON ${n.memories} (tenant, updated_at, id);
CREATE INDEX ${n.prefix}_stated ON ${n.memories} (tenant, (COALESCE(stated_at, '')), id);
CREATE INDEX ${n.prefix}_model ON ${n.memories} (tenant, embed_model, user_id);
CREATE INDEX ${n.prefix}_key ON ${n.memories} (tenant, key);
CREATE INDEX ${n.prefix}_tags ON ${n.memories} USING gin (tags);
CREATE INDEX ${n.prefix}_fts ON ${n.memories} USING gin (fts);
`,
  },
  {
    version: 2,
    name: 'type-updated-index',
    // The searcher's working-memory path lists one type's newest rows of a scope.
    sql: (n) => `CREATE INDEX ${n.prefix}_type_updated ON ${n.memories} (tenant, type, updated_at, id);`,
  },
  {
    version: 3,
    name: 'formation',
    // World-time validity and the episode columns on memories, the history log and the work
    // queue. Every key and unique index leads with tenant (distribution by tenant); ids are
    // generated, never drawn from a sequence. Rows from before read valid_from as
    // statedAt ?? createdAt; the backfill copies only canonical ISO times (an immutable test,
    // which a distributed UPDATE allows), the others keep reading through the same fallback.
    sql: (n) => `
ALTER TABLE ${n.memories}
  ADD COLUMN valid_from text COLLATE "C",
  ADD COLUMN valid_to text COLLATE "C",
  ADD COLUMN superseded_by text COLLATE "C",
  ADD COLUMN version integer NOT NULL DEFAULT 1,
  ADD COLUMN scope_key text COLLATE "C",
  ADD COLUMN text_key text COLLATE "C",
  ADD COLUMN mergeable integer,
  ADD COLUMN seen_count integer,
  ADD COLUMN episode jsonb;
UPDATE ${n.memories} SET valid_from = COALESCE(stated_at, created_at)
  WHERE COALESCE(stated_at, created_at) ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$';
CREATE UNIQUE INDEX ${n.prefix}_episode_text ON ${n.memories} (tenant, scope_key, text_key) WHERE mergeable = 1;
CREATE TABLE ${n.history} (
  tenant text COLLATE "C" NOT NULL,
  memory_id text COLLATE "C" NOT NULL,
  n integer NOT NULL,
  id text COLLATE "C" NOT NULL,
  kind text NOT NULL,
  at text COLLATE "C" NOT NULL,
  before jsonb,
  after jsonb,
  cause jsonb NOT NULL,
  caller jsonb NOT NULL,
  source_turn_ids jsonb NOT NULL DEFAULT '[]',
  job_id text COLLATE "C",
  ord integer NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, memory_id, n),
  UNIQUE (tenant, id)
);
CREATE INDEX ${n.prefix}_history_job ON ${n.history} (tenant, job_id, ord) WHERE job_id IS NOT NULL;
CREATE TABLE ${n.jobs} (
  tenant text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  idempotency_key text COLLATE "C" NOT NULL,
  scope jsonb NOT NULL,
  extractor_name text NOT NULL,
  extractor_version text NOT NULL,
  episode_ids jsonb NOT NULL,
  session_id text,
  tz_offset_minutes integer NOT NULL DEFAULT 0,
  state text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  next_run_at text COLLATE "C" NOT NULL,
  lease_owner text COLLATE "C",
  lease_until text COLLATE "C",
  last_error jsonb,
  result jsonb,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  finished_at text COLLATE "C",
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, idempotency_key)
);
CREATE INDEX ${n.prefix}_jobs_due ON ${n.jobs} (state, next_run_at);
CREATE INDEX ${n.prefix}_jobs_tenant_due ON ${n.jobs} (tenant, state, next_run_at);
CREATE INDEX ${n.prefix}_jobs_created ON ${n.jobs} (tenant, created_at, id);
`,
  },
];

async function tryExtension(client: pg.PoolClient, name: string): Promise<boolean> {
  const found = await client.query<{ installed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1) AS installed`,
    [name],
  );
  if (found.rows[0]?.installed) return true;
  const available = await client.query<{ ok: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = $1) AS ok`,
    [name],
  );
  if (!available.rows[0]?.ok) return false;
  await client.query('SAVEPOINT engram_ext');
  try {
    await client.query(`CREATE EXTENSION IF NOT EXISTS ${quoteIdent(name)}`);
    await client.query('RELEASE SAVEPOINT engram_ext');
    return true;
  } catch {
    // No privilege to create it (managed servers): carry on without it.
    await client.query('ROLLBACK TO SAVEPOINT engram_ext');
    return false;
  }
}

/** Options of {@link applyPgMigrations}. */
export interface ApplyPgMigrationsOptions {
  /** @default 'public' */
  schema?: string | undefined;
  /** Try `CREATE EXTENSION vector` and add the pgvector column. @default true */
  pgvector?: boolean | undefined;
  /** Migrations to apply. @default PG_MIGRATIONS */
  migrations?: readonly PgMigration[] | undefined;
  /** Its DDL runs after the migrations, in the same transaction. @default SINGLE_NODE */
  topology?: PgTopology | undefined;
}

/** What {@link applyPgMigrations} did. */
export interface PgMigrationReport {
  /** Versions applied by this call, in order. */
  applied: number[];
  /** Highest applied version after the call. */
  version: number;
  /** True when the pgvector column exists (the extension is installed and usable). */
  pgvector: boolean;
}

/**
 * Applies pending migrations under a transaction-level advisory lock (so concurrent processes
 * never apply a step twice), then makes sure the optional pgvector column exists when the
 * extension is available, then runs the topology's DDL (distribution), all in one transaction.
 * Idempotent; this is what `engram migrate` calls.
 * Throws EngramError('MIGRATION_ERROR') naming the failing version.
 */
export async function applyPgMigrations(
  pool: pg.Pool,
  options: ApplyPgMigrationsOptions = {},
): Promise<PgMigrationReport> {
  const schema = options.schema ?? 'public';
  const names = pgNames(schema);
  const migrations = [...(options.migrations ?? PG_MIGRATIONS)].sort((a, b) => a.version - b.version);
  const client = await pool.connect();
  const applied: number[] = [];
  let current = 0;
  let failing: PgMigration | undefined;
  let topologyFailed: string | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`engram-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${names.schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.migrations} (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await client.query<{ version: number }>(`SELECT version FROM ${names.migrations}`)).rows.map((r) => r.version),
    );
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      failing = migration;
      await client.query(migration.sql(names));
      await client.query(`INSERT INTO ${names.migrations} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
      failing = undefined;
    }
    current = Math.max(0, ...done, ...applied);
    const pgvector = options.pgvector === false ? false : await ensurePgVector(client, names);
    const topology = options.topology ?? SINGLE_NODE;
    topologyFailed = topology.name;
    await topology.afterMigrations(client, names);
    topologyFailed = undefined;
    await client.query('COMMIT');
    return { applied, version: current, pgvector };
  } catch (cause) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new EngramError(
      'MIGRATION_ERROR',
      failing
        ? `postgres migration ${failing.version} (${failing.name}) failed`
        : topologyFailed !== undefined
          ? `postgres ${topologyFailed} topology DDL failed`
          : 'postgres migrations failed',
      { cause, details: { version: failing?.version, schema, topology: topologyFailed } },
    );
  } finally {
    client.release();
  }
}

/** Versions recorded in `engram_schema_migrations` (empty when the schema was never migrated). */
export async function appliedPgMigrations(pool: pg.Pool, schema = 'public'): Promise<number[]> {
  const names = pgNames(schema);
  const exists = await pool.query<{ t: string | null }>(`SELECT to_regclass($1) AS t`, [
    `${names.schema}.engram_schema_migrations`,
  ]);
  if (!exists.rows[0]?.t) return [];
  return (await pool.query<{ version: number }>(`SELECT version FROM ${names.migrations} ORDER BY version`)).rows.map(
    (r) => r.version,
  );
}

/**
 * Installs pgvector if possible and adds the `embedding vector` column, backfilling it from the
 * float32 bytes of rows written before. Returns false when the extension is unavailable.
 */
async function ensurePgVector(client: pg.PoolClient, names: PgNames): Promise<boolean> {
  if (!(await tryExtension(client, 'vector'))) return false;
  const col = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'embedding' AND NOT attisdropped`,
    [names.memories],
  );
  if ((col.rows[0]?.n ?? 0) > 0) return true;
  await client.query(`ALTER TABLE ${names.memories} ADD COLUMN embedding vector`);
  // Backfill: float32 LE bytes -> vector, in SQL so no row leaves the server.
  await client.query(`UPDATE ${names.memories} SET embedding = (
      SELECT ('[' || string_agg(
        (CASE WHEN (b >> 31) = 1 THEN -1 ELSE 1 END *
         CASE WHEN ((b >> 23) & 255) = 0 THEN (b & 8388607) * 2.0 ^ (-149)
              ELSE ((b & 8388607) + 8388608) * 2.0 ^ (((b >> 23) & 255) - 150) END)::float4::text, ',' ORDER BY i) || ']')::vector
      FROM (SELECT i, (get_byte(vector, i * 4) | (get_byte(vector, i * 4 + 1) << 8) | (get_byte(vector, i * 4 + 2) << 16)
                       | (get_byte(vector, i * 4 + 3)::bigint << 24)) AS b
            FROM generate_series(0, embed_dim - 1) AS i) AS bits)
    WHERE vector IS NOT NULL AND embedding IS NULL`);
  return true;
}
