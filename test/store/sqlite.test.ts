import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngramError, isEngramError } from '../../src/model/errors.js';
import type { MemoryFilter } from '../../src/model/memory-filter.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';
import { runStoreConformance } from './conformance.js';
import {
  applySqliteMigrations,
  createSqliteStore,
  SQLITE_MIGRATIONS,
  type SqliteStore,
  type SqliteStoreOptions,
} from '../../src/store/sqlite/index.js';
import { jsCosine, makeRecord, randomVector, seededRandom, withVector } from './fixtures/records.js';
import { expectCode } from '../support/expect-code.js';
import { unitVector } from '../../src/vector/unit-cosine.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'store-child.ts');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'engram-sqlite-'));
}

/** The conformance suite's raw write: a 7-byte vector blob, logged so every cache sees it. */
const sqliteConformance = {
  async corruptVector(store: MemoryStore, tenant: string, id: string): Promise<void> {
    const db = (store as SqliteStore).database;
    db.prepare("UPDATE memories SET vector = x'01020304050607' WHERE tenant = ? AND id = ?").run(tenant, id);
    db.prepare('INSERT INTO memory_changes (tenant, id) VALUES (?, ?)').run(tenant, id);
  },
};

runStoreConformance(
  'sqlite (temp file)',
  async () => {
    const dir = tempDir();
    const store = createSqliteStore({ path: join(dir, 'engram.db'), synchronous: 'NORMAL' });
    return {
      store,
      async cleanup() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  {
    ...sqliteConformance,
    // Another process opens the same file (the SIGKILL and two-process cases).
    childSpec: (store: MemoryStore) => ({ kind: 'sqlite' as const, path: (store as SqliteStore).database.name }),
  },
);

runStoreConformance(
  'sqlite (:memory:)',
  async () => {
    const store = createSqliteStore({ path: ':memory:' });
    return { store, cleanup: () => store.close() };
  },
  sqliteConformance,
);

runStoreConformance(
  'sqlite (:memory:, int8 pre-selection from the first row)',
  async () => {
    const store = createSqliteStore({ path: ':memory:', vectorQuantizeAbove: 0 });
    return { store, cleanup: () => store.close() };
  },
  sqliteConformance,
);

runStoreConformance(
  'sqlite (:memory:, no vector cache)',
  async () => {
    const store = createSqliteStore({ path: ':memory:', vectorCache: false });
    return { store, cleanup: () => store.close() };
  },
  sqliteConformance,
);

// ------------------------------------------------------------------ SQLite-specific behaviour

function childProcess(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

function runChild(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = childProcess(args);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe('SQLite store', () => {
  let dir: string;
  let path: string;
  const open: SqliteStore[] = [];
  const openStore = (options: Partial<SqliteStoreOptions> = {}): SqliteStore => {
    const store = createSqliteStore({ path, synchronous: 'NORMAL', ...options });
    open.push(store);
    return store;
  };

  beforeEach(() => {
    dir = tempDir();
    path = join(dir, 'engram.db');
  });

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a file database in WAL mode with foreign keys and a busy timeout', () => {
    const store = openStore({ busyTimeoutMs: 1234 });
    const db = store.database;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
  });

  it('maps 256 MiB of the file by default, what mmapBytes asks for, and nothing with 0', () => {
    expect(openStore().database.pragma('mmap_size', { simple: true })).toBe(256 * 1024 * 1024);
    expect(openStore({ mmapBytes: 2 ** 20 }).database.pragma('mmap_size', { simple: true })).toBe(2 ** 20);
    expect(openStore({ mmapBytes: 0 }).database.pragma('mmap_size', { simple: true })).toBe(0);
  });

  it('records versioned migrations once and re-applies nothing on reopen', async () => {
    const store = openStore();
    const versions = () => store.database.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(versions()).toEqual(SQLITE_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    await store.migrate();
    await store.close();
    const again = openStore();
    expect(applySqliteMigrations(again.database)).toBe(0);
    expect(again.database.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({
      n: SQLITE_MIGRATIONS.length,
    });
  });

  it('runs each migration in its own transaction: a failing one leaves no trace and earlier ones stay', () => {
    const db = openSqliteDatabase(path);
    try {
      const migrations = [
        { version: 1, name: 'ok', sql: 'CREATE TABLE a (x INTEGER);' },
        { version: 2, name: 'broken', sql: 'CREATE TABLE b (x INTEGER); INSERT INTO no_such_table VALUES (1);' },
      ];
      let caught: unknown;
      try {
        applySqliteMigrations(db, migrations);
      } catch (error) {
        caught = error;
      }
      expect(isEngramError(caught, 'MIGRATION_ERROR')).toBe(true);
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b')").all();
      expect(tables).toEqual([{ name: 'a' }]);
      expect(db.prepare('SELECT version FROM schema_migrations').all()).toEqual([{ version: 1 }]);
    } finally {
      db.close();
    }
  });

  it('stores vectors as little-endian float32 blobs with model and dim columns', async () => {
    const store = openStore();
    const v = new Float32Array([1.5, -2.25, 3.125]);
    await store.insert([withVector(v, 'model-x', { id: 'blob', scope: { tenant: 't' } })]);
    const row = store.database
      .prepare("SELECT embed_model, embed_dim, vector FROM memories WHERE id = 'blob'")
      .get() as {
      embed_model: string;
      embed_dim: number;
      vector: Buffer;
    };
    expect(row.embed_model).toBe('model-x');
    expect(row.embed_dim).toBe(3);
    expect(row.vector.byteLength).toBe(12);
    expect([row.vector.readFloatLE(0), row.vector.readFloatLE(4), row.vector.readFloatLE(8)]).toEqual([
      1.5, -2.25, 3.125,
    ]);
  });

  it('getVectors answers from the vector cache exactly what was stored, unit length or not, and follows updates', async () => {
    const store = openStore();
    const random = seededRandom(11);
    const raw = Array.from({ length: 12 }, () => randomVector(random, 16));
    // Half already unit length (as embedders' vectors are): the cache holds those bit for bit.
    const vectors = raw.map((v, i) => (i % 2 === 0 ? (unitVector(v) as Float32Array) : v));
    await store.insert(vectors.map((v, i) => withVector(v, 'test-model', { id: `v${i}`, scope: { tenant: 't' } })));
    const ids = vectors.map((_, i) => `v${i}`);
    const read = async (): Promise<Map<string, Float32Array>> => store.getVectors('t', ids);
    const beforeCache = await read();
    // A dense search loads the partition; the same call is then served (partly) from it.
    await store.denseSearch({ filter: { scope: { tenant: 't' } }, vector: vectors[0]!, model: 'test-model', limit: 3 });
    const fromCache = await read();
    for (const [i, v] of vectors.entries()) {
      expect([...(beforeCache.get(`v${i}`) ?? [])]).toEqual([...v]);
      expect([...(fromCache.get(`v${i}`) ?? [])]).toEqual([...v]);
    }
    // A copy: changing it leaves the cache (and the next answer) alone.
    fromCache.get('v0')?.fill(0);
    expect([...((await read()).get('v0') ?? [])]).toEqual([...vectors[0]!]);
    const fresh = unitVector(randomVector(random, 16)) as Float32Array;
    const at = new Date(Date.UTC(2030, 0, 1)).toISOString();
    await store.update('t', 'v0', { updatedAt: at }, { vector: fresh, embedding: { model: 'test-model', dim: 16 } });
    await store.delete('t', ['v2']);
    const after = await read();
    expect([...(after.get('v0') ?? [])]).toEqual([...fresh]);
    expect(after.has('v2')).toBe(false);
    expect(after.size).toBe(11);
  });

  it('a corrupt vector blob gives CORRUPT_VECTOR on getVectors, is skipped by search, and the row stays listable', async () => {
    const store = openStore();
    const random = seededRandom(3);
    const rows = Array.from({ length: 20 }, (_, i) =>
      withVector(randomVector(random, 8), 'test-model', { id: `r${i}`, scope: { tenant: 't' } }),
    );
    await store.insert(rows);
    store.database.prepare("UPDATE memories SET vector = x'01020304050607' WHERE id = 'r0'").run();
    const error = await expectCode(store.getVectors('t', ['r0', 'r1']), 'CORRUPT_VECTOR');
    expect(error.details).toMatchObject({ ids: ['r0'] });
    expect((await store.getVectors('t', ['r1'])).size).toBe(1);
    const hits = await store.denseSearch({
      filter: { scope: { tenant: 't' } },
      vector: rows[0]!.vector!,
      model: 'test-model',
      limit: 50,
    });
    expect(hits.map((h) => h.id)).not.toContain('r0');
    expect(hits).toHaveLength(19);
    expect(store.corruptVectorsSkipped).toBe(1);
    expect((await store.list({ scope: { tenant: 't' }, ids: ['r0'] })).items.map((m) => m.id)).toEqual(['r0']);
    // The scan path (no cache) skips it as well.
    const scan = openStore({ vectorCache: false });
    const scanHits = await scan.denseSearch({
      filter: { scope: { tenant: 't' } },
      vector: rows[0]!.vector!,
      model: 'test-model',
      limit: 50,
    });
    expect(scanHits.map((h) => h.id)).toEqual(hits.map((h) => h.id));
  });

  it('persistent SQLITE_BUSY surfaces as a retryable STORE_BUSY', async () => {
    const store = openStore({ busyTimeoutMs: 50 });
    await store.insert([makeRecord({ scope: { tenant: 't' } })]);
    const other = openSqliteDatabase(path);
    try {
      other.exec('BEGIN IMMEDIATE');
      other.prepare("INSERT INTO memory_changes (tenant, id) VALUES ('x', 'y')").run();
      const started = Date.now();
      const error = await expectCode(store.insert([makeRecord({ scope: { tenant: 't' } })]), 'STORE_BUSY');
      expect(error.isRetryable).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(40);
      await expectCode(store.update('t', 'x', { updatedAt: new Date().toISOString() }), 'STORE_BUSY');
      // Reads still work under WAL while another connection writes.
      expect(await store.count({ scope: { tenant: 't' } })).toBe(1);
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    await store.insert([makeRecord({ scope: { tenant: 't' } })]);
    expect(await store.count({ scope: { tenant: 't' } })).toBe(2);
  });

  it('a second process writing the same database concurrently loses nothing', async () => {
    const store = openStore({ busyTimeoutMs: 10_000 });
    const child = runChild(['write', path, 'shared', '150', 'child']);
    const random = seededRandom(5);
    for (let i = 0; i < 150; i++) {
      await store.insert([
        withVector(randomVector(random, 16), 'test-model', { id: `parent-${i}`, scope: { tenant: 'shared' } }),
      ]);
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    expect(await child).toContain('done');
    expect(await store.count({ scope: { tenant: 'shared' } })).toBe(300);
    const hits = await store.denseSearch({
      filter: { scope: { tenant: 'shared' } },
      vector: randomVector(random, 16),
      model: 'test-model',
      limit: 300,
    });
    expect(hits).toHaveLength(300);
  });

  it('the vector cache follows inserts, updates and deletes made by another process', async () => {
    const store = openStore();
    const random = seededRandom(8);
    const base = Array.from({ length: 50 }, (_, i) =>
      withVector(randomVector(random, 8), 'test-model', { id: `base-${i}`, scope: { tenant: 't', user: 'u' } }),
    );
    await store.insert(base);
    const query = randomVector(random, 8);
    const search = async (user?: string) =>
      store.denseSearch({ filter: { scope: { tenant: 't', user } }, vector: query, model: 'test-model', limit: 3 });
    const first = await search('u');
    await search(); // loads the all-users partition too
    const top = first[0]!.id;
    await runChild([
      'mutate',
      path,
      't',
      JSON.stringify({
        insert: [{ id: 'from-child', vector: Array.from(query), user: 'u' }],
        update: [
          { id: 'base-1', status: 'archived' },
          { id: 'base-2', vector: Array.from(query).map((x) => -x) },
        ],
        delete: [top],
      }),
    ]);
    for (const user of ['u', undefined]) {
      const hits = await search(user);
      expect(hits[0]?.id).toBe('from-child');
      expect(hits[0]?.cosine).toBeCloseTo(1, 5);
      expect(hits.map((h) => h.id)).not.toContain(top);
      const all = await store.denseSearch({
        filter: { scope: { tenant: 't', user } },
        vector: query,
        model: 'test-model',
        limit: 100,
      });
      expect(all.map((h) => h.id)).not.toContain('base-1');
      expect(all).toHaveLength(49); // 50 + 1 inserted - 1 archived - 1 deleted
      const [updated] = await store.get('t', ['base-2']);
      expect(all[all.length - 1]).toEqual({
        id: 'base-2',
        cosine: expect.closeTo(-1, 5) as number,
        updatedAt: updated?.updatedAt,
        type: updated?.type,
      });
    }
  });

  it('the vector cache reloads when the change log was pruned past it', async () => {
    const store = openStore();
    const random = seededRandom(9);
    await store.insert([withVector(randomVector(random, 8), 'test-model', { id: 'a', scope: { tenant: 't' } })]);
    const query = randomVector(random, 8);
    expect(
      await store.denseSearch({ filter: { scope: { tenant: 't' } }, vector: query, model: 'test-model', limit: 5 }),
    ).toHaveLength(1);
    const other = openStore();
    await other.insert([withVector(query, 'test-model', { id: 'b', scope: { tenant: 't' } })]);
    other.database.prepare('DELETE FROM memory_changes').run();
    await other.insert([withVector(randomVector(random, 8), 'test-model', { id: 'c', scope: { tenant: 't' } })]);
    const hits = await store.denseSearch({
      filter: { scope: { tenant: 't' } },
      vector: query,
      model: 'test-model',
      limit: 5,
    });
    expect(hits.map((h) => h.id).sort()).toEqual(['a', 'b', 'c']);
    expect(hits[0]?.id).toBe('b');
  });

  it('a child killed with SIGKILL mid-import loses no acknowledged batch and leaves no partial batch', async () => {
    const batchSize = 200;
    const child = childProcess(['import', path, '400', String(batchSize)]);
    const acked = await new Promise<number[]>((resolve, reject) => {
      const seen: number[] = [];
      let buffer = '';
      child.stdout?.on('data', (d: Buffer) => {
        buffer += d.toString();
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          const m = /^ack (\d+)$/.exec(line);
          if (m) seen.push(Number(m[1]));
          if (seen.length === 15) child.kill('SIGKILL');
        }
      });
      child.on('exit', (_code, signal) =>
        signal === 'SIGKILL' ? resolve(seen) : reject(new Error(`child ended without SIGKILL (${String(signal)})`)),
      );
    });
    expect(acked.length).toBeGreaterThanOrEqual(15);
    const store = openStore();
    const counts = store.database
      .prepare(
        "SELECT json_extract(metadata, '$.batch') AS batch, count(*) AS n FROM memories WHERE tenant = 'import' GROUP BY batch",
      )
      .all() as Array<{ batch: number; n: number }>;
    const byBatch = new Map(counts.map((c) => [c.batch, c.n]));
    for (const b of acked) expect(byBatch.get(b), `batch ${b}`).toBe(batchSize);
    for (const [b, n] of byBatch) expect(n, `batch ${b} is whole`).toBe(batchSize);
    expect(store.database.pragma('integrity_check', { simple: true })).toBe('ok');
    // FTS and vectors of the surviving rows are usable.
    expect(
      (await store.lexicalSearch({ filter: { scope: { tenant: 'import' } }, terms: ['batch'], limit: 5 })).length,
    ).toBe(5);
  });

  it.each([
    ['float32 scan', Infinity],
    ['int8 pre-selection', 0],
  ])('keeps FTS5, tags and the vector cache consistent through random writes (%s)', async (_label, quantizeAbove) => {
    const store = openStore({ vectorQuantizeAbove: quantizeAbove });
    const random = seededRandom(77);
    const words = ['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape', '花生', 'café', 'москва'];
    const model = new Map<
      string,
      { text: string; tags: string[]; vector: Float32Array | null; status: 'activated' | 'archived' }
    >();
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const sentence = () => Array.from({ length: 3 }, () => pick(words)).join(' ');
    let n = 0;
    for (let step = 0; step < 300; step++) {
      const r = random();
      const existing = [...model.keys()];
      if (r < 0.45 || existing.length < 5) {
        const id = `id${n++}`;
        const vector = random() < 0.8 ? randomVector(random, 6) : null;
        const rec = { text: sentence(), tags: [pick(['x', 'y', 'z'])], vector, status: 'activated' as const };
        model.set(id, rec);
        await store.insert([
          vector
            ? withVector(vector, 'test-model', { id, scope: { tenant: 't' }, text: rec.text, tags: rec.tags })
            : makeRecord({ id, scope: { tenant: 't' }, text: rec.text, tags: rec.tags }),
        ]);
      } else if (r < 0.8) {
        const id = pick(existing);
        const rec = model.get(id)!;
        const text = random() < 0.5 ? sentence() : undefined;
        const tags = random() < 0.5 ? [pick(['x', 'y', 'z'])] : undefined;
        const status = random() < 0.3 ? (rec.status === 'activated' ? 'archived' : 'activated') : undefined;
        const vector = random() < 0.3 ? randomVector(random, 6) : undefined;
        await store.update(
          't',
          id,
          { text, tags, status, updatedAt: new Date().toISOString() },
          vector ? { vector, embedding: { model: 'test-model', dim: 6 } } : undefined,
        );
        model.set(id, {
          text: text ?? rec.text,
          tags: tags ?? rec.tags,
          status: status ?? rec.status,
          vector: vector ?? rec.vector,
        });
      } else {
        const id = pick(existing);
        await store.delete('t', [id]);
        model.delete(id);
      }
      if (step % 25 === 0 || step === 299) {
        const word = pick(words);
        const lexical = (await store.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: [word], limit: 1000 }))
          .map((h) => h.id)
          .sort();
        const wantLex = [...model]
          .filter(([, m]) => m.status === 'activated' && m.text.split(' ').includes(word))
          .map(([id]) => id)
          .sort();
        expect(lexical, `lexical ${word} at step ${step}`).toEqual(wantLex);
        // The same channel answered from the vector cache's inverted index: rows with a vector only.
        const cached = (
          await store.lexicalSearch({
            filter: { scope: { tenant: 't' } },
            terms: [word],
            limit: 1000,
            space: { model: 'test-model', dim: 6 },
          })
        )
          .map((h) => h.id)
          .sort();
        expect(cached, `cached lexical ${word} at step ${step}`).toEqual(
          wantLex.filter((id) => model.get(id)?.vector !== null),
        );
        const tag = pick(['x', 'y', 'z']);
        const tagged = (
          await store.list(
            { scope: { tenant: 't' }, tags: [tag], statuses: ['activated', 'archived'] },
            { limit: 1000 },
          )
        ).items
          .map((m) => m.id)
          .sort();
        expect(tagged).toEqual(
          [...model]
            .filter(([, m]) => m.tags.includes(tag))
            .map(([id]) => id)
            .sort(),
        );
        const query = randomVector(random, 6);
        const dense = await store.denseSearch({
          filter: { scope: { tenant: 't' } },
          vector: query,
          model: 'test-model',
          limit: 10,
        });
        const want = [...model]
          .filter(([, m]) => m.status === 'activated' && m.vector !== null)
          .map(([id, m]) => ({ id, cosine: jsCosine(m.vector!, query) }))
          .sort((a, b) => b.cosine - a.cosine)
          .slice(0, 10);
        expect(
          dense.map((h) => h.id),
          `dense at step ${step}`,
        ).toEqual(want.map((h) => h.id));
      }
    }
    store.database.prepare("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')").run();
    const orphans = store.database
      .prepare('SELECT count(*) AS n FROM memory_tags WHERE pk NOT IN (SELECT pk FROM memories)')
      .get();
    expect(orphans).toEqual({ n: 0 });
  });

  it('caps lexical work for common words and still finds rare terms', async () => {
    const store = openStore({ lexicalRankAllBelow: 100, lexicalScanCap: 50 });
    const rows = Array.from({ length: 400 }, (_, i) =>
      makeRecord({
        id: `w${i}`,
        scope: { tenant: 't' },
        text: i === 123 ? 'the common word and a rare okapi' : `the common word number ${i}`,
      }),
    );
    await store.insert(rows);
    // Common terms alone: bounded scan, still returns ranked results.
    const common = await store.lexicalSearch({
      filter: { scope: { tenant: 't' } },
      terms: ['the', 'common', 'word'],
      limit: 10,
    });
    expect(common).toHaveLength(10);
    // A rare term among common ones: common ones are dropped, the rare row is found first.
    const rare = await store.lexicalSearch({
      filter: { scope: { tenant: 't' } },
      terms: ['the', 'common', 'okapi'],
      limit: 10,
    });
    expect(rare.map((h) => h.id)).toEqual(['w123']);
    // With the defaults every matching row is scored.
    const full = openStore();
    expect(
      (await full.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: ['common', 'okapi'], limit: 1000 }))
        .length,
    ).toBe(400);
  });

  it('the bounded lexical path walks back in windows to find a small tenant behind a big one', async () => {
    const store = openStore({ lexicalRankAllBelow: 100, lexicalScanCap: 50 });
    const small = Array.from({ length: 20 }, (_, i) =>
      makeRecord({ id: `s${i}`, scope: { tenant: 'small' }, text: `alpha beta ${i}` }),
    );
    await store.insert(small);
    await store.insert(
      Array.from({ length: 300 }, (_, i) =>
        makeRecord({ id: `b${i}`, scope: { tenant: 'big' }, text: `alpha beta ${i}` }),
      ),
    );
    const got = await store.lexicalSearch({
      filter: { scope: { tenant: 'small' } },
      terms: ['alpha', 'beta'],
      limit: 10,
    });
    expect(got).toHaveLength(10);
    expect(got.every((h) => h.id.startsWith('s'))).toBe(true);
    // Newest first among equal scores.
    expect(got.map((h) => h.id)).toEqual(['s19', 's18', 's17', 's16', 's15', 's14', 's13', 's12', 's11', 's10']);
  });

  it('evicts least recently used vector partitions beyond vectorCacheMaxBytes and stays exact', async () => {
    const store = openStore({ vectorCacheMaxBytes: 40_000 });
    const random = seededRandom(12);
    const users = ['u0', 'u1', 'u2', 'u3'];
    const rows = users.flatMap((user) =>
      Array.from({ length: 40 }, (_, i) =>
        withVector(randomVector(random, 64), 'test-model', { id: `${user}-${i}`, scope: { tenant: 't', user } }),
      ),
    );
    await store.insert(rows);
    const query = randomVector(random, 64);
    for (let round = 0; round < 3; round++) {
      for (const user of users) {
        const got = await store.denseSearch({
          filter: { scope: { tenant: 't', user } },
          vector: query,
          model: 'test-model',
          limit: 5,
        });
        const want = rows
          .filter((r) => r.scope.user === user)
          .map((r) => ({ id: r.id, cosine: jsCosine(r.vector!, query) }))
          .sort((a, b) => b.cosine - a.cosine)
          .slice(0, 5);
        expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
      }
    }
    // 4 partitions of 40 x 64 floats (~10 KB of vectors each, plus id overhead) cannot all stay under 40 KB.
    const cache = store.vectorCacheStats();
    expect(cache.partitions).toBeGreaterThan(0);
    expect(cache.partitions).toBeLessThan(4);
    expect(cache.bytes).toBeLessThanOrEqual(40_000);
  });

  it('a short id list is scored slot by slot with the rest of the filter applied, as a scan would', async () => {
    const cached = openStore();
    const scan = openStore({ vectorCache: false });
    const random = seededRandom(21);
    const rows = Array.from({ length: 400 }, (_, i) =>
      withVector(randomVector(random, 8), 'test-model', {
        id: `r${i}`,
        scope: { tenant: 't', session: `s${i % 3}` },
        type: i % 4 === 0 ? 'UserMemory' : 'LongTermMemory',
        status: i % 5 === 0 ? 'archived' : 'activated',
      }),
    );
    await cached.insert(rows);
    const ids = Array.from({ length: 30 }, (_, i) => `r${i * 13}`).concat(['missing', 'r13']);
    const query = randomVector(random, 8);
    const filters: MemoryFilter[] = [
      { scope: { tenant: 't' }, ids },
      { scope: { tenant: 't' }, ids, statuses: ['activated', 'archived'] },
      { scope: { tenant: 't', session: 's1' }, ids, types: ['LongTermMemory'] },
      { scope: { tenant: 'other' }, ids },
    ];
    for (const filter of filters) {
      const q = { filter, vector: query, model: 'test-model', limit: 20 };
      const got = await cached.denseSearch(q);
      const want = await scan.denseSearch(q);
      expect(
        got.map((h) => h.id),
        JSON.stringify(filter),
      ).toEqual(want.map((h) => h.id));
      got.forEach((h, i) => expect(h.cosine).toBeCloseTo(want[i]!.cosine, 9));
    }
  });

  it.each([
    ['float32 scan', Infinity],
    ['int8 pre-selection', 0],
  ])('remembered filter matches follow writes (%s)', async (_label, quantizeAbove) => {
    const store = openStore({ vectorQuantizeAbove: quantizeAbove });
    const random = seededRandom(31);
    const rows = Array.from({ length: 200 }, (_, i) =>
      withVector(randomVector(random, 16), 'test-model', {
        id: `f${i}`,
        scope: { tenant: 't', agent: i % 2 === 0 ? 'even' : 'odd' },
        tags: i % 20 === 0 ? ['rare'] : [],
      }),
    );
    await store.insert(rows);
    const query = randomVector(random, 16);
    const search = async (filter: object) =>
      (
        await store.denseSearch({
          filter: { scope: { tenant: 't' }, ...filter },
          vector: query,
          model: 'test-model',
          limit: 200,
        })
      ).map((h) => h.id);
    const expectSet = (got: string[], want: string[]) => expect([...got].sort()).toEqual([...want].sort());
    for (let round = 0; round < 2; round++) {
      expectSet(
        await search({ tags: ['rare'] }),
        rows.filter((_, i) => i % 20 === 0).map((r) => r.id),
      );
      expectSet(
        await search({ scope: { tenant: 't', agent: 'even' } }),
        rows.filter((_, i) => i % 2 === 0).map((r) => r.id),
      );
    }
    await store.delete('t', ['f20']);
    await store.update('t', 'f1', { tags: ['rare'], updatedAt: new Date().toISOString() });
    await store.update('t', 'f2', { status: 'archived', updatedAt: new Date().toISOString() });
    const rare = rows.filter((_, i) => i % 20 === 0 && i !== 20).map((r) => r.id);
    expectSet(await search({ tags: ['rare'] }), [...rare, 'f1']);
    expectSet(
      await search({ scope: { tenant: 't', agent: 'even' } }),
      rows.filter((_, i) => i % 2 === 0 && i !== 20 && i !== 2).map((r) => r.id),
    );
  });

  it('rejects writes with lone surrogates instead of storing replacement characters', async () => {
    const store = openStore();
    await expectCode(store.insert([makeRecord({ scope: { tenant: 't' }, text: 'a\uD800b' })]), 'INVALID_TEXT');
    await expectCode(store.insert([makeRecord({ scope: { tenant: 't', user: 'u\uDC00' } })]), 'INVALID_TEXT');
    expect(store.database.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 0 });
  });

  it('records migrations with the injected clock', () => {
    const store = openStore({ clock: () => new Date('2030-01-02T03:04:05.000Z') });
    const stamps = store.database.prepare('SELECT DISTINCT applied_at FROM schema_migrations').all();
    expect(stamps).toEqual([{ applied_at: '2030-01-02T03:04:05.000Z' }]);
  });

  it('preloadVectors loads a partition and its lexical index ahead of the first query', async () => {
    const store = openStore();
    const random = seededRandom(4);
    await store.insert(
      Array.from({ length: 30 }, (_, i) =>
        withVector(randomVector(random, 8), 'test-model', {
          id: `p${i}`,
          scope: { tenant: 't', user: i < 10 ? 'u' : 'v' },
        }),
      ),
    );
    expect(store.vectorCacheStats()).toMatchObject({ partitions: 0, lexicalIndexes: 0 });
    expect(await store.preloadVectors({ tenant: 't', model: 'test-model', dim: 8, user: 'u' })).toBe(10);
    expect(store.vectorCacheStats()).toMatchObject({ partitions: 1, lexicalIndexes: 1 });
    expect(await store.preloadVectors({ tenant: 't', model: 'test-model', dim: 8 })).toBe(30);
    expect(await store.preloadVectors({ tenant: 't', model: 'other', dim: 8 })).toBe(0);
    expect(store.vectorCacheStats()).toMatchObject({ partitions: 3, lexicalIndexes: 3 });
  });

  it('createSqliteStore rejects a missing path with CONFIG_ERROR', () => {
    expect(() => createSqliteStore({} as SqliteStoreOptions)).toThrow(EngramError);
  });
});
