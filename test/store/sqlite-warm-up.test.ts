import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DenseQuery, LexicalQuery } from '../../src/store/memory-store.js';
import { createSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite/index.js';
import { Engram } from '../../src/engram.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createHashEmbedder } from '../support/hash-embedder.js';
import { randomVector, seededRandom, withVector } from './fixtures/records.js';

const WORDS = ['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape', 'honey', 'kiwi', 'lemon'];
const SPACE = { model: 'test-model', dim: 8 };
/** More rows than one chunk of a background load (2048), so warming takes several steps. */
const BIG = 2600;
const SMALL = 300;

function rows(seed: number, n: number, user: string): ReturnType<typeof withVector>[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) =>
    withVector(randomVector(random, 8), 'test-model', {
      id: `${user}-${i}`,
      scope: { tenant: 't', user },
      text: Array.from({ length: 3 }, () => WORDS[Math.floor(random() * WORDS.length)] as string).join(' '),
    }),
  );
}

const probe = randomVector(seededRandom(99), 8);
const dense = (user: string): DenseQuery => ({
  filter: { scope: { tenant: 't', user } },
  model: 'test-model',
  vector: probe,
  limit: 20,
});
const lexical = (user: string): LexicalQuery => ({
  filter: { scope: { tenant: 't', user } },
  terms: ['kiwi', 'fig'],
  limit: 20,
  space: SPACE,
});

describe('SQLite vector cache warm-up across restarts', () => {
  let dir: string;
  const stores: SqliteStore[] = [];
  const open = (options: Partial<SqliteStoreOptions> = {}): SqliteStore => {
    const store = createSqliteStore({ path: join(dir, 'engram.db'), synchronous: 'NORMAL', ...options });
    stores.push(store);
    return store;
  };
  const closeAll = async (): Promise<void> => {
    for (const store of stores.splice(0)) await store.close();
  };

  /** A database whose last process searched user `small` after user `big`; the answers it gave. */
  async function servedBefore(): Promise<{ dense: Map<string, unknown>; lexical: Map<string, unknown> }> {
    const store = open();
    await store.insert([...rows(1, BIG, 'big'), ...rows(2, SMALL, 'small')]);
    const answers = { dense: new Map<string, unknown>(), lexical: new Map<string, unknown>() };
    for (const user of ['big', 'small']) {
      answers.dense.set(user, await store.denseSearch(dense(user)));
      answers.lexical.set(user, await store.lexicalSearch(lexical(user)));
    }
    await closeAll();
    return answers;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-warm-up-'));
  });
  afterEach(async () => {
    await closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('remembers the served partitions at close and loads them on warm(), most recent first, answering as before', async () => {
    const before = await servedBefore();
    const remembered = JSON.parse(readFileSync(join(dir, 'engram.db-partitions.json'), 'utf8')) as {
      partitions: { user: string; memories: number; bytes: number }[];
    };
    expect(remembered.partitions.map((p) => [p.user, p.memories])).toEqual([
      ['small', SMALL],
      ['big', BIG],
    ]);
    const store = open();
    expect(store.vectorCacheStats()).toMatchObject({ partitions: 0, memories: 0 });
    const report = await store.warm();
    expect(report.partitions.map((p) => [p.user, p.memories])).toEqual([
      ['small', SMALL],
      ['big', BIG],
    ]);
    expect(report).toMatchObject({ skipped: 0, cachedMemories: BIG + SMALL });
    const stats = store.vectorCacheStats();
    expect(stats).toMatchObject({ partitions: 2, lexicalIndexes: 2, memories: BIG + SMALL });
    expect(stats.bytes).toBe(report.cachedBytes);
    expect(stats.bytes).toBeGreaterThan(0);
    expect(stats.bytes).toBeLessThanOrEqual(stats.maxBytes);
    for (const user of ['big', 'small']) {
      expect(await store.denseSearch(dense(user))).toEqual(before.dense.get(user));
      expect(await store.lexicalSearch(lexical(user))).toEqual(before.lexical.get(user));
    }
  });

  it('warms only what fits in the cache budget, most recent first, and counts the rest as skipped', async () => {
    await servedBefore();
    const remembered = JSON.parse(readFileSync(join(dir, 'engram.db-partitions.json'), 'utf8')) as {
      partitions: { user: string; bytes: number }[];
    };
    const small = remembered.partitions.find((p) => p.user === 'small')?.bytes ?? 0;
    const big = remembered.partitions.find((p) => p.user === 'big')?.bytes ?? 0;
    expect(big).toBeGreaterThan(small);
    const store = open({ vectorCacheMaxBytes: small + Math.floor((big - small) / 2) });
    const report = await store.warm();
    expect(report.partitions.map((p) => p.user)).toEqual(['small']);
    expect(report.skipped).toBe(1);
    expect(store.vectorCacheStats()).toMatchObject({ partitions: 1, memories: SMALL });
  });

  it('serves searches while warming and catches up rows written meanwhile', async () => {
    const before = await servedBefore();
    const top = (before.dense.get('big') as { id: string }[])[0]?.id as string;
    const store = open();
    const warming = store.warm();
    // The small partition is in; the big one has read its first chunk and yields before the next.
    expect(store.vectorCacheStats()).toMatchObject({ partitions: 1, memories: SMALL });
    // Writes to rows already read (big-1) or not (the rest) reach the cache through the change log.
    await store.delete('t', [top]);
    await store.insert([withVector(probe, 'test-model', { id: 'big-new', scope: { tenant: 't', user: 'big' } })]);
    const updatedAt = new Date().toISOString();
    await store.update('t', 'big-1', { text: 'kiwi kiwi kiwi fig', updatedAt }, { vector: probe, embedding: SPACE });
    // A search of the partition still loading waits for it.
    const during = await store.denseSearch(dense('big'));
    expect((await warming).partitions.map((p) => p.user)).toEqual(['small', 'big']);
    const fresh = open({ vectorCache: false });
    const want = await fresh.denseSearch(dense('big'));
    expect(during.map((c) => c.id)).toEqual(want.map((c) => c.id));
    expect(
      during
        .slice(0, 2)
        .map((c) => c.id)
        .sort(),
    ).toEqual(['big-1', 'big-new']);
    expect(during.map((c) => c.id)).not.toContain(top);
    // The lexical index caught up too: it answers as one loaded from scratch now.
    const cold = open();
    const words = await store.lexicalSearch(lexical('big'));
    expect(words).toEqual(await cold.lexicalSearch(lexical('big')));
    expect(words.map((c) => c.id)).toContain('big-1');
    expect(words.map((c) => c.id)).not.toContain(top);
  });

  it('warms nothing from a missing or malformed file, and remembers nothing for an in-memory database', async () => {
    const store = open();
    expect(await store.warm()).toMatchObject({ partitions: [], skipped: 0, cachedMemories: 0 });
    writeFileSync(join(dir, 'engram.db-partitions.json'), '{"version":1,"partitions":[{"tenant":5}]');
    expect(await store.warm()).toMatchObject({ partitions: [], skipped: 0 });
    const memory = createSqliteStore({ path: ':memory:' });
    stores.push(memory);
    await memory.insert(rows(3, 10, 'u'));
    await memory.denseSearch(dense('u'));
    expect(await memory.warm()).toMatchObject({ partitions: [] });
    await closeAll();
    expect(existsSync(join(dir, ':memory:-partitions.json'))).toBe(false);
  });

  it('Engram.warm loads the scopes served before a restart and checks their models, so their first recall reads no stats', async () => {
    const embedder = createHashEmbedder({ dim: 16 });
    const scope = { tenant: 't', user: 'u' };
    const first = await Engram.open({ store: open(), embedder });
    await first.addMany(
      WORDS.map((w, i) => ({ text: `${w} ${WORDS[(i + 3) % WORDS.length]}` })),
      { scope },
    );
    const before = await first.recall('kiwi', { scope, limit: 3, threshold: 0 });
    await first.close();
    stores.splice(0);
    const store = open();
    let statsCalls = 0;
    const counted: MemoryStore = Object.assign(Object.create(store) as SqliteStore, {
      stats: (...args: Parameters<MemoryStore['stats']>) => {
        statsCalls++;
        return store.stats(...args);
      },
    });
    const engram = await Engram.open({ store: counted, embedder, trackUsage: false });
    const report = await engram.warm();
    expect(report.partitions).toEqual([
      { tenant: 't', user: 'u', model: embedder.model, dim: 16, memories: WORDS.length },
    ]);
    expect(statsCalls).toBe(1);
    const after = await engram.recall('kiwi', { scope, limit: 3, threshold: 0 });
    expect(statsCalls).toBe(1);
    expect(after.hits.map((h) => [h.memory.id, h.score])).toEqual(before.hits.map((h) => [h.memory.id, h.score]));
    await engram.close();
  });
});
