import type { SqliteDatabase } from '../../util/sqlite-database.js';
import { EngramError } from '../../model/errors.js';
import { isSqliteBusy } from './sqlite-errors.js';

/** One schema step. Applied once, in its own transaction, recorded in `schema_migrations`. */
export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The schema, oldest first. Never edit a released migration; append a new one.
 *
 * - `memories`: one row per memory. `pk` is the rowid the FTS index points at; `(tenant, id)`
 *   is the public key, so the same id may exist in two tenants without either seeing the other.
 *   Vectors are little-endian float32 BLOBs with `embed_model` / `embed_dim`.
 * - `memory_tags`: one row per (memory, tag) for all-of tag filters, cascading on delete.
 * - `memories_fts`: contentless FTS5 (`contentless_delete=1`) kept in step by the store in the
 *   same transaction as every write. Column `body` holds the text with CJK runs rewritten as
 *   overlapping bigrams; column `uni` holds the CJK characters one by one (for 1-char terms).
 * - `memory_changes`: append-only change log (`seq` increases with every write) that lets the
 *   in-memory vector cache of every process catch up with writes made by other processes.
 * - (4) world-time validity on `memories` (`valid_from`, `valid_to`, `superseded_by`, `version`;
 *   rows from before it read `valid_from` from `statedAt ?? createdAt`), the episode columns
 *   (`scope_key`, `text_key`, `mergeable`, `seen_count`, `episode`) with one mergeable row per
 *   (tenant, exact scope, text key), `memory_history` (append-only, numbered per memory, kept
 *   after a hard delete) and `formation_jobs` (the work queue, one job per idempotency key).
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'memories',
    sql: `
CREATE TABLE memories (
  pk INTEGER PRIMARY KEY,
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  user_id TEXT,
  agent_id TEXT,
  session_id TEXT,
  collection TEXT,
  type TEXT NOT NULL,
  key TEXT,
  tags TEXT NOT NULL DEFAULT '[]',
  level TEXT,
  summary TEXT,
  background TEXT,
  sources TEXT NOT NULL DEFAULT '[]',
  metadata TEXT NOT NULL DEFAULT '{}',
  text TEXT NOT NULL,
  stated_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'activated',
  use_count INTEGER NOT NULL DEFAULT 0,
  last_used_at TEXT,
  embed_model TEXT,
  embed_dim INTEGER,
  vector BLOB,
  UNIQUE (tenant, id)
);
CREATE INDEX memories_created ON memories (tenant, created_at, id);
CREATE INDEX memories_updated ON memories (tenant, updated_at, id);
CREATE INDEX memories_stated ON memories (tenant, stated_at, id);
CREATE INDEX memories_user ON memories (tenant, user_id, created_at);
CREATE INDEX memories_vectors ON memories (tenant, embed_model, embed_dim, user_id);
CREATE INDEX memories_key ON memories (tenant, key);
CREATE TABLE memory_tags (
  pk INTEGER NOT NULL REFERENCES memories (pk) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY (tag, pk)
) WITHOUT ROWID;
CREATE INDEX memory_tags_pk ON memory_tags (pk);
CREATE TABLE memory_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant TEXT NOT NULL,
  id TEXT NOT NULL
);
`,
  },
  {
    version: 2,
    name: 'fts5',
    sql: `
CREATE VIRTUAL TABLE memories_fts USING fts5 (
  body, uni,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE memories_fts_vocab USING fts5vocab (memories_fts, 'row');
`,
  },
  {
    version: 3,
    name: 'type-updated-index',
    // The searcher's working-memory path lists one type's newest rows of a scope: without it,
    // every matching row of the scope was read and sorted (8.8 ms per search at 10k rows).
    sql: 'CREATE INDEX memories_type_updated ON memories (tenant, type, updated_at, id);',
  },
  {
    version: 4,
    name: 'formation',
    sql: `
ALTER TABLE memories ADD COLUMN valid_from TEXT;
ALTER TABLE memories ADD COLUMN valid_to TEXT;
ALTER TABLE memories ADD COLUMN superseded_by TEXT;
ALTER TABLE memories ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE memories ADD COLUMN scope_key TEXT;
ALTER TABLE memories ADD COLUMN text_key TEXT;
ALTER TABLE memories ADD COLUMN mergeable INTEGER;
ALTER TABLE memories ADD COLUMN seen_count INTEGER;
ALTER TABLE memories ADD COLUMN episode TEXT;
UPDATE memories SET valid_from = strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(stated_at, created_at));
CREATE UNIQUE INDEX memories_episode_text ON memories (tenant, scope_key, text_key) WHERE mergeable = 1;
CREATE TABLE memory_history (
  tenant TEXT NOT NULL,
  memory_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  at TEXT NOT NULL,
  before TEXT,
  after TEXT,
  cause TEXT NOT NULL,
  caller TEXT NOT NULL,
  source_turn_ids TEXT NOT NULL DEFAULT '[]',
  job_id TEXT,
  ord INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, memory_id, n),
  UNIQUE (tenant, id)
) WITHOUT ROWID;
CREATE INDEX memory_history_job ON memory_history (tenant, job_id, ord) WHERE job_id IS NOT NULL;
CREATE TABLE formation_jobs (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  scope TEXT NOT NULL,
  extractor_name TEXT NOT NULL,
  extractor_version TEXT NOT NULL,
  episode_ids TEXT NOT NULL,
  session_id TEXT,
  tz_offset_minutes INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  next_run_at TEXT NOT NULL,
  lease_owner TEXT,
  lease_until TEXT,
  last_error TEXT,
  result TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, idempotency_key)
);
CREATE INDEX formation_jobs_due ON formation_jobs (state, next_run_at);
CREATE INDEX formation_jobs_tenant_due ON formation_jobs (tenant, state, next_run_at);
CREATE INDEX formation_jobs_created ON formation_jobs (tenant, created_at, id);
`,
  },
];

/**
 * Applies pending migrations, each in its own IMMEDIATE transaction (so two processes opening
 * the same new file do not both apply it). Idempotent.
 */
export function applySqliteMigrations(
  db: SqliteDatabase,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
  clock: () => Date = () => new Date(),
): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const has = db.prepare<[number], { version: number }>('SELECT version FROM schema_migrations WHERE version = ?');
  const record = db.prepare<[number, string, string]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  let applied = 0;
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const step = db.transaction(() => {
      if (has.get(migration.version) !== undefined) return false;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, clock().toISOString());
      return true;
    });
    try {
      if (step.immediate()) applied++;
    } catch (cause) {
      if (isSqliteBusy(cause)) {
        throw new EngramError('STORE_BUSY', `database busy while applying migration ${migration.version}`, {
          cause,
          isRetryable: true,
        });
      }
      throw new EngramError('MIGRATION_ERROR', `migration ${migration.version} (${migration.name}) failed`, {
        cause,
        details: { version: migration.version },
      });
    }
  }
  return applied;
}
