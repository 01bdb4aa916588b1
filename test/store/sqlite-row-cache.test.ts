import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { RowCache } from '../../src/store/sqlite/row-cache.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';
import type { Memory } from '../../src/model/memory.js';
import { at, makeRecord } from './fixtures/records.js';

const T = 't';

describe('SQLite row cache: reads stay current', () => {
  let dir: string;
  let path: string;
  let store: SqliteStore;
  let other: SqliteStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-row-cache-'));
    path = join(dir, 'rows.db');
    store = createSqliteStore({ path });
    other = createSqliteStore({ path });
  });

  afterEach(async () => {
    await store.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cachedRow(text: string): Promise<string> {
    const record = makeRecord({ scope: { tenant: T }, text });
    await store.insert([record]);
    expect((await store.get(T, [record.id]))[0]?.text).toBe(text);
    // The second read is answered from the cache.
    expect((await store.get(T, [record.id]))[0]?.text).toBe(text);
    expect(store.vectorCacheStats().rows).toBe(1);
    return record.id;
  }

  it('keeps rows read and serves them as fresh objects', async () => {
    const id = await cachedRow('kept');
    const [a] = await store.get(T, [id]);
    const [b] = await store.get(T, [id]);
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    (a as { tags: string[] }).tags.push('mutated by a caller');
    expect((await store.get(T, [id]))[0]?.tags).toEqual([]);
  });

  it('keeps what it holds apart from every caller’s memory, nested values included', async () => {
    const record = makeRecord({
      scope: { tenant: T, user: 'u' },
      tags: ['a'],
      sources: [{ type: 'chat', id: 's1', role: 'user' }],
      metadata: { nested: { list: [1, { deep: 'x' }] }, ['__proto__']: { kept: true } } as Memory['metadata'],
      vector: Float32Array.of(0.6, 0.8),
      embedding: { model: 'm', dim: 2 },
    });
    await store.insert([record]);
    // The first read comes from SQLite and is remembered: its caller's edits must not reach the cache.
    const [first] = (await store.get(T, [record.id])) as [Memory];
    const stored = structuredClone(first);
    const edit = (m: Memory): void => {
      m.tags.push('t');
      (m.sources[0] as { role?: string }).role = 'edited';
      ((m.metadata.nested as { list: unknown[] }).list[1] as { deep: string }).deep = 'edited';
      m.scope.user = 'edited';
      m.usage.count = 99;
      (m.embedding as { dim: number }).dim = 1;
    };
    edit(first);
    const [second] = (await store.get(T, [record.id])) as [Memory];
    expect(store.vectorCacheStats().rows).toBe(1);
    expect(second).toEqual(stored);
    expect(second.embedding).toEqual({ model: 'm', dim: 2 });
    expect(Object.keys(second.metadata)).toEqual(['nested', '__proto__']);
    expect(Object.getPrototypeOf(second.metadata)).toBe(Object.prototype);
    edit(second);
    expect((await store.get(T, [record.id]))[0]).toEqual(stored);
  });

  it('shows this connection’s updates, usage and deletes at once', async () => {
    const id = await cachedRow('before');
    await store.update(T, id, { text: 'after', updatedAt: at(900) });
    expect((await store.get(T, [id]))[0]?.text).toBe('after');
    await store.addUsage!(T, [{ id, count: 2, lastUsedAt: at(901) }]);
    expect((await store.get(T, [id]))[0]?.usage).toMatchObject({ count: 2, lastUsedAt: at(901) });
    await store.delete(T, [id]);
    expect(await store.get(T, [id])).toEqual([]);
  });

  it('keeps a row cached through usage writes, with the counts the database holds', async () => {
    const id = await cachedRow('used');
    await store.recordUsage(T, [id], at(901));
    await store.addUsage!(T, [{ id, count: 3, lastUsedAt: null }]);
    expect(store.vectorCacheStats().rows).toBe(1);
    expect((await store.get(T, [id]))[0]?.usage).toEqual({ count: 4, lastUsedAt: at(901) });
    await store.setUsage!(T, [{ id, count: 7, lastUsedAt: at(903) }]);
    expect(store.vectorCacheStats().rows).toBe(1);
    const cached = (await store.get(T, [id]))[0];
    expect(cached?.usage).toEqual({ count: 7, lastUsedAt: at(903) });
    // The database agrees: the other connection reads the row from the file.
    expect((await other.get(T, [id]))[0]).toEqual(cached);
  });

  it('keeps the committed counts when a usage write rolls back', async () => {
    const id = await cachedRow('used');
    await store.recordUsage(T, [id], at(901));
    // Its update succeeds; a deferred foreign key then fails the COMMIT itself.
    store.database.exec(`
      CREATE TABLE refusals (ref INTEGER REFERENCES memories(pk) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER refuse_usage AFTER UPDATE OF use_count ON memories WHEN NEW.use_count > 3
      BEGIN INSERT INTO refusals VALUES (-1); END`);
    await expect(store.addUsage!(T, [{ id, count: 5, lastUsedAt: at(902) }])).rejects.toThrow(/FOREIGN KEY/);
    expect((await store.get(T, [id]))[0]?.usage).toEqual({ count: 1, lastUsedAt: at(901) });
    expect((await other.get(T, [id]))[0]?.usage).toEqual({ count: 1, lastUsedAt: at(901) });
    // Inside a transaction the store did not begin, whose outcome it does not see, rolled back too.
    const db = store.database;
    expect(() =>
      db.transaction(() => {
        void store.recordUsage(T, [id], at(904));
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect((await store.get(T, [id]))[0]?.usage).toEqual({ count: 1, lastUsedAt: at(901) });
  });

  it('shows another connection’s commits, in a later turn and in the same one', async () => {
    const id = await cachedRow('before');
    await other.update(T, id, { text: 'from the other connection', updatedAt: at(900) });
    // No I/O between the two: the same event-loop turn.
    expect((await store.get(T, [id]))[0]?.text).toBe('from the other connection');
    await new Promise((resolve) => setImmediate(resolve));
    await other.recordUsage(T, [id], at(902));
    expect((await store.get(T, [id]))[0]?.usage).toMatchObject({ count: 1, lastUsedAt: at(902) });
  });

  it('shows a commit made outside this process’s stores once a later turn reads', async () => {
    const id = await cachedRow('before');
    // A bare connection, as another process would be: nothing tells this process's stores of its commit.
    const raw = openSqliteDatabase(path);
    try {
      raw.prepare('UPDATE memories SET text = ? WHERE id = ?').run('from another process', id);
    } finally {
      raw.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.get(T, [id]))[0]?.text).toBe('from another process');
  });

  it('does not keep a row read inside a transaction that is rolled back', async () => {
    const record = makeRecord({ scope: { tenant: T }, text: 'committed' });
    await store.insert([record]);
    // Another row cached: the cache is in step with the database before the transaction.
    await cachedRow('another');
    const db = store.database;
    expect(() =>
      db.transaction(() => {
        db.prepare('UPDATE memories SET text = ? WHERE id = ?').run('rolled back', record.id);
        // SQLite answers inside the call: this read happens in the transaction.
        void store.get(T, [record.id]);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect((await store.get(T, [record.id]))[0]?.text).toBe('committed');
  });

  it('does not reuse a read remembered inside a transaction that is rolled back', async () => {
    const filter = { scope: { tenant: T } };
    await store.insert([makeRecord({ scope: { tenant: T }, updatedAt: at(1) })]);
    const before = await store.newestIds!(filter, 10);
    expect(await store.newestIds!(filter, 10)).toEqual(before);
    const db = store.database;
    let inside: Promise<unknown> = Promise.resolve();
    expect(() =>
      db.transaction(() => {
        void store.insert([makeRecord({ scope: { tenant: T }, updatedAt: at(2) })]);
        inside = store.newestIds!(filter, 10);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(await inside).toHaveLength(2);
    expect(await store.newestIds!(filter, 10)).toEqual(before);
  });

  it('keeps nothing with rowCacheMaxBytes 0 or without the vector cache', async () => {
    for (const options of [{ rowCacheMaxBytes: 0 }, { vectorCache: false }]) {
      const plain = createSqliteStore({ path, ...options });
      const record = makeRecord({ scope: { tenant: T } });
      await plain.insert([record]);
      await plain.get(T, [record.id]);
      expect(plain.vectorCacheStats().rows).toBe(0);
      await plain.close();
    }
  });
});

describe('RowCache', () => {
  const row = (id: string, text: string): Memory => {
    const { vector: _vector, ...record } = makeRecord({ id, text });
    return {
      ...record,
      usage: { count: 0, lastUsedAt: null },
      validFrom: record.createdAt,
      validTo: null,
      supersededBy: null,
      version: 1,
    };
  };

  it('drops the least recently used rows beyond its bytes', () => {
    const cache = new RowCache(5_000);
    for (let i = 0; i < 50; i++) cache.remember(T, [row(`m${i}`, 'x'.repeat(300))]);
    expect(cache.bytes).toBeLessThanOrEqual(5_000);
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(50);
    expect(cache.take(T, ['m49']).has('m49')).toBe(true);
    expect(cache.take(T, ['m0']).has('m0')).toBe(false);
  });

  it('keys rows by tenant', () => {
    const cache = new RowCache(1_000_000);
    cache.remember('a', [row('m1', 'of a')]);
    expect(cache.take('b', ['m1']).size).toBe(0);
    expect(cache.take('a', ['m1']).get('m1')?.text).toBe('of a');
    cache.forget('a', 'm1');
    expect(cache.take('a', ['m1']).size).toBe(0);
  });

  it('never answers one tenant with the row of another that has the same id', () => {
    const cache = new RowCache(1_000_000);
    cache.remember('a', [row('m1', 'of a')]);
    cache.remember('b', [row('m1', 'of b')]);
    expect(cache.take('a', ['m1']).size).toBe(0);
    expect(cache.take('b', ['m1']).get('m1')?.text).toBe('of b');
    // Another tenant's write of that id neither revises nor drops b's row.
    cache.revise('a', [{ id: 'm1' }], (memory) => ({ ...memory, text: 'revised by a' }));
    cache.forget('a', 'm1');
    expect(cache.take('b', ['m1']).get('m1')?.text).toBe('of b');
    cache.revise('b', [{ id: 'm1' }], (memory) => ({ ...memory, text: 'revised by b' }));
    expect(cache.take('b', ['m1']).get('m1')?.text).toBe('revised by b');
    cache.forget('b', 'm1');
    expect(cache.size).toBe(0);
  });
});
