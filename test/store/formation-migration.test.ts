/**
 * Databases written before formation: the formation migration (SQLite 4, PostgreSQL 3) keeps
 * every row, gives it the validity it reads with (`statedAt ?? createdAt`, open, version 1) and
 * lets the history start with the next write. And on PostgreSQL under repeatable read, where the
 * advisory locks alone cannot make a later snapshot see an earlier commit, racing appends of one
 * text still end with one row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnTextKey } from '../../src/model/formation/normalize-turn-text.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { applyPgMigrations, createPostgresStore, PG_MIGRATIONS } from '../../src/store/postgres/index.js';
import { applySqliteMigrations, createSqliteStore, SQLITE_MIGRATIONS } from '../../src/store/sqlite/index.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { turnWrite } from './formation-cases/episode-cases.js';

let cluster: PgCluster;
const dir = mkdtempSync(join(tmpdir(), 'engram-formation-migration-'));
beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_formation_migration' });
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const COLUMNS = 'tenant, id, type, text, stated_at, created_at, updated_at';
const OLD_ROWS: Array<[string, string, string | null, string]> = [
  ['said', 'The user lives in Lisbon', '2024-05-01T10:00:00.000Z', '2026-01-02T00:00:00.000Z'],
  ['stored', 'The user likes tea', null, '2026-01-03T00:00:00.000Z'],
];

/** What every backend must read from the rows written before the migration, and that it then records history. */
async function expectUpgraded(store: MemoryStore): Promise<void> {
  const [said, stored] = await store.get('old', ['said', 'stored']);
  expect(said).toMatchObject({ validFrom: '2024-05-01T10:00:00.000Z', validTo: null, supersededBy: null, version: 1 });
  expect(stored).toMatchObject({ validFrom: '2026-01-03T00:00:00.000Z', version: 1 });
  expect(await store.count({ scope: { tenant: 'old' }, validAt: '2025-01-01T00:00:00.000Z' })).toBe(1);
  expect((await store.formation!.history.list('old', 'said')).items).toEqual([]);
  const updated = await store.update('old', 'said', {
    text: 'The user lives in Porto',
    updatedAt: '2026-02-01T00:00:00.000Z',
  });
  expect(updated?.version).toBe(2);
  const events = (await store.formation!.history.list('old', 'said')).items;
  expect(events.map((e) => [e.kind, e.before?.text, e.after?.text])).toEqual([
    ['updated', 'The user lives in Lisbon', 'The user lives in Porto'],
  ]);
}

describe('the formation migration upgrades a database written before it', () => {
  it('on SQLite', async () => {
    const path = join(dir, 'old.db');
    const db = openSqliteDatabase(path);
    applySqliteMigrations(
      db,
      SQLITE_MIGRATIONS.filter((m) => m.version < 4),
    );
    const insert = db.prepare(`INSERT INTO memories (${COLUMNS}) VALUES ('old', ?, 'UserMemory', ?, ?, ?, ?)`);
    for (const [id, text, statedAt, createdAt] of OLD_ROWS) insert.run(id, text, statedAt, createdAt, createdAt);
    db.close();
    const store = createSqliteStore({ path });
    await expectUpgraded(store);
    await store.close();
  });

  it('on PostgreSQL', async () => {
    const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
    await applyPgMigrations(pool, { schema: 'upgrade', migrations: PG_MIGRATIONS.filter((m) => m.version < 3) });
    for (const [id, text, statedAt, createdAt] of OLD_ROWS) {
      await pool.query(
        `INSERT INTO upgrade.engram_memories (${COLUMNS}, fts) VALUES ('old', $1, 'UserMemory', $2, $3, $4, $4, to_tsvector('simple', $2))`,
        [id, text, statedAt, createdAt],
      );
    }
    await pool.end();
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'upgrade', vector: 'app' });
    await expectUpgraded(store);
    await store.close();
  });
});

describe('racing appends under repeatable read (PostgreSQL)', () => {
  it('end with one row per text, each counted by every append', async () => {
    const open = () =>
      createPostgresStore({
        connectionString: cluster.url,
        schema: 'repeatable',
        vector: 'app',
        isolation: 'repeatable read',
        maxConnections: 4,
      });
    const stores = [await open(), await open()];
    const scope = { tenant: 'race', user: 'u' };
    const texts = Array.from({ length: 6 }, (_, i) => `a fact said twice ${i}`);
    await Promise.all(
      stores.flatMap((store, s) =>
        texts.map((text) =>
          store.formation!.episodes.appendEpisodes(
            [turnWrite(scope, text, { messageId: `${s}-${text}`, session: 's' })],
            {
              at: '2026-03-01T00:00:00.000Z',
            },
          ),
        ),
      ),
    );
    expect(await stores[0]!.count({ scope: { tenant: 'race' } })).toBe(texts.length);
    for (const text of texts) {
      expect((await stores[1]!.formation!.episodes.findEpisode(scope, turnTextKey(text)))?.count).toBe(2);
    }
    await Promise.all(stores.map((s) => s.close()));
  });
});
