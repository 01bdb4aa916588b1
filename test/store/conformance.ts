/**
 * The shared MemoryStore conformance suite. Every backend runs it:
 *
 *   runStoreConformance('sqlite (file)', async () => ({ store, cleanup }), { skip: { 'test name': 'reason' } });
 *
 * Each test gets a fresh store from `factory` and uses tenants unique to the test, so a factory
 * may also hand out the same database every time. Test names are stable: backends skip by name.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngramError } from '../../src/model/errors.js';
import type { Memory } from '../../src/model/memory.js';
import type { DenseQuery, LexicalQuery, MemoryRecord, MemoryStore, StorePatch } from '../../src/store/memory-store.js';
import { DEFAULT_STATUSES, LIST_ORDERS, MAX_STORE_LIMIT, type MemoryFilter } from '../../src/model/memory-filter.js';
import { MEMORY_STATUSES } from '../../src/model/memory-type.js';
import { at, jsCosine, makeRecord, randomVector, seededRandom, testId, withVector } from './fixtures/records.js';
import { expectCode } from '../support/expect-code.js';
import { unitVector } from '../../src/vector/unit-cosine.js';
import { maxCosine } from '../../src/vector/max-cosine.js';
import type { ChildStoreSpec } from './fixtures/child-store-spec.js';
import type { CaseContext } from './formation-cases/case-context.js';
import { episodeCases } from './formation-cases/episode-cases.js';
import { historyCases } from './formation-cases/history-cases.js';
import { processCases } from './formation-cases/process-cases.js';
import { queueCases } from './formation-cases/queue-cases.js';
import { restoreCheckCases } from './formation-cases/restore-check-cases.js';
import { transferCases } from './formation-cases/transfer-cases.js';
import { validityCases } from './formation-cases/validity-cases.js';
import { windowCases } from './formation-cases/window-cases.js';

export interface StoreHandle {
  store: MemoryStore;
  cleanup(): Promise<void>;
}

export interface ConformanceOptions {
  /** Test name -> reason. Skipped tests are reported as skipped, with the reason in the title. */
  skip?: Record<string, string>;
  /**
   * Overwrites the stored vector bytes of one row with bytes of the wrong length, through the
   * backend's own connection (what a torn write or a bad import leaves). The tests that need it are
   * skipped, saying so, when a backend gives none.
   */
  corruptVector?: ((store: MemoryStore, tenant: string, id: string) => Promise<void>) | undefined;
  /**
   * How another process opens the database of this store (the SIGKILL and two-process cases).
   * Those cases are skipped, saying so, when a backend's database is private to this process.
   */
  childSpec?: ((store: MemoryStore) => ChildStoreSpec) | undefined;
  /**
   * The backend answers the searches' extras (`withRows`, `scoreWith`: a network store does, so a
   * recall makes no further round trips); the extras test then requires them on every candidate.
   * @default false (the fields may be left out, but when given they must be right)
   */
  answersSearchExtras?: boolean | undefined;
}

/** Every test name of the suite, for backends that want to check their skip list. */
export const CONFORMANCE_TESTS: string[] = [];

/**
 * Each `storedCosine` a store gave with its rows (it may leave them out) is the one its
 * `storedCosines` gives, and comes with the row's last update.
 */
async function expectStoredCosines(
  store: MemoryStore,
  tenant: string,
  rows: ReadonlyArray<{ id: string; storedCosine?: number | undefined; updatedAt?: string | undefined }>,
  vectors: Float32Array[],
): Promise<void> {
  const stored = await store.storedCosines?.(
    tenant,
    rows.map((r) => r.id),
    vectors,
  );
  for (const r of rows) {
    if (r.storedCosine === undefined) continue;
    expect(stored, 'a store that gives storedCosine has storedCosines').toBeDefined();
    expect(r.storedCosine, r.id).toBe(stored?.get(r.id));
    expect(r.updatedAt, r.id).toBe((await store.get(tenant, [r.id]))[0]?.updatedAt);
  }
}

let tenantCounter = 0;
function tenant(label = 't'): string {
  tenantCounter++;
  return `${label}-${process.pid}-${Date.now().toString(36)}-${tenantCounter}`;
}

/** What a record should look like when read back (no vector, usage zero, the validity it was written with or its defaults). */
function expected(record: MemoryRecord): Memory {
  const { vector: _vector, ...rest } = record;
  return {
    ...rest,
    usage: { count: 0, lastUsedAt: null },
    validFrom: new Date(record.validFrom ?? record.statedAt ?? record.createdAt).toISOString(),
    validTo: record.validTo ?? null,
    supersededBy: record.supersededBy ?? null,
    version: record.version ?? 1,
  };
}

/** The lexical tests run twice: over every row, and over the rows of one embedding space. */
interface LexicalMode {
  name: string;
  record: (overrides: Partial<MemoryRecord>) => MemoryRecord;
  space: { model: string; dim: number } | undefined;
}

const LEXICAL_MODES: LexicalMode[] = [
  { name: 'every row', record: (overrides) => makeRecord(overrides), space: undefined },
  {
    name: 'the rows of an embedding space',
    record: (overrides) =>
      withVector(randomVector(seededRandom(overrides.text?.length ?? 1), 8), 'test-model', overrides),
    space: { model: 'test-model', dim: 8 },
  },
];

function ids(items: Array<{ id: string }>): string[] {
  return items.map((item) => item.id);
}

export function runStoreConformance(
  name: string,
  factory: () => Promise<StoreHandle>,
  options: ConformanceOptions = {},
): void {
  const skip = options.skip ?? {};

  describe(`MemoryStore conformance: ${name}`, () => {
    let handle: StoreHandle;
    let store: MemoryStore;

    beforeEach(async () => {
      handle = await factory();
      store = handle.store;
      await store.migrate();
    });

    afterEach(async () => {
      await handle.cleanup();
    });

    /** lexicalSearch in a lexical mode (adds the mode's space). */
    function lexical(mode: LexicalMode, query: LexicalQuery): ReturnType<MemoryStore['lexicalSearch']> {
      return store.lexicalSearch(mode.space === undefined ? query : { ...query, space: mode.space });
    }

    function test(title: string, fn: () => Promise<void>, unsupported?: string): void {
      CONFORMANCE_TESTS.push(title);
      const reason = skip[title] ?? unsupported;
      if (reason !== undefined) {
        it.skip(`${title} [skipped: ${reason}]`, fn);
      } else {
        it(title, fn);
      }
    }

    // ---------------------------------------------------------------- migrate / insert / get

    test('migrate is idempotent', async () => {
      await store.migrate();
      await store.migrate();
      const T = tenant();
      const r = makeRecord({ scope: { tenant: T } });
      await store.insert([r]);
      await store.migrate();
      expect(ids(await store.get(T, [r.id]))).toEqual([r.id]);
    });

    test('insert/get round-trips every field', async () => {
      const T = tenant();
      const vector = randomVector(seededRandom(1), 8);
      const r = makeRecord({
        scope: { tenant: T, user: 'u1', agent: 'a1', session: 's1', collection: 'c1' },
        text: 'The user is allergic to peanuts',
        type: 'UserMemory',
        key: 'allergy',
        tags: ['health', 'food'],
        level: 'fact',
        summary: 'peanut allergy',
        background: 'said during dinner planning',
        sources: [
          { type: 'chat', id: 'D1:3', role: 'user', content: 'I am allergic to peanuts' },
          { type: 'web', url: 'https://example.com/a?b=1', title: 'A page' },
        ],
        metadata: {
          n: 1,
          f: 1.5,
          b: true,
          nil: null,
          s: 'x',
          arr: [1, 'two', { three: 3 }],
          nested: { deep: { er: [true] } },
        },
        statedAt: '2023-05-08T13:56:00.000Z',
        createdAt: at(10),
        updatedAt: at(11),
        status: 'activated',
        vector,
        embedding: { model: 'test-model', dim: 8 },
      });
      await store.insert([r]);
      const [got] = await store.get(T, [r.id]);
      expect(got).toEqual(expected(r));
      expect(got?.usage).toEqual({ count: 0, lastUsedAt: null });
    });

    test('insert/get round-trips unicode, emoji and CJK text', async () => {
      const T = tenant();
      const texts = [
        'Crème brûlée à la façon de Zoë — naïve café',
        'Привет, Москва! Ёлка',
        '我对花生过敏，喜欢吃辣的东西',
        '東京タワーに行きました',
        '한국어 문장입니다',
        'Emoji 👩🏽‍💻🚀 and flags 🇯🇵 and ZWJ 👨‍👩‍👧‍👦',
        'Math 𝔸𝔹ℂ and combining e\u0301 and RTL مرحبا',
        'quotes " \' ` and backslash \\ and newline\nand tab\t',
      ];
      const records = texts.map((text, i) =>
        makeRecord({ scope: { tenant: T }, text, tags: [text.slice(0, 4)], metadata: { text, i }, summary: text }),
      );
      await store.insert(records);
      const got = await store.get(T, ids(records));
      expect(got).toEqual(records.map(expected));
    });

    test('insert/get round-trips statedAt null and set', async () => {
      const T = tenant();
      const a = makeRecord({ scope: { tenant: T }, statedAt: null });
      const b = makeRecord({ scope: { tenant: T }, statedAt: '2020-02-29T23:59:59.999Z' });
      await store.insert([a, b]);
      const got = await store.get(T, [a.id, b.id]);
      expect(got.map((m) => m.statedAt)).toEqual([null, '2020-02-29T23:59:59.999Z']);
    });

    test('insert/get round-trips a null vector', async () => {
      const T = tenant();
      const r = makeRecord({ scope: { tenant: T }, vector: null, embedding: null });
      await store.insert([r]);
      const [got] = await store.get(T, [r.id]);
      expect(got?.embedding).toBeNull();
      expect((await store.getVectors(T, [r.id])).size).toBe(0);
    });

    test('get follows the order of ids and skips missing ids', async () => {
      const T = tenant();
      const rs = [0, 1, 2].map(() => makeRecord({ scope: { tenant: T } }));
      await store.insert(rs);
      const order = [rs[2]!.id, 'missing-id', rs[0]!.id, rs[1]!.id];
      expect(ids(await store.get(T, order))).toEqual([rs[2]!.id, rs[0]!.id, rs[1]!.id]);
      expect(await store.get(T, [])).toEqual([]);
    });

    test('get returns rows of every status', async () => {
      const T = tenant();
      const rs = (['activated', 'archived', 'deleted'] as const).map((status) =>
        makeRecord({ scope: { tenant: T }, status }),
      );
      await store.insert(rs);
      expect((await store.get(T, ids(rs))).map((m) => m.status)).toEqual(['activated', 'archived', 'deleted']);
    });

    test('getVectors returns stored vectors exactly and skips rows without one', async () => {
      const T = tenant();
      const random = seededRandom(2);
      const v1 = randomVector(random, 16);
      v1[3] = -0.0000001234;
      v1[4] = 3.4e38;
      const a = withVector(v1, 'test-model', { scope: { tenant: T } });
      const b = makeRecord({ scope: { tenant: T } });
      await store.insert([a, b]);
      const got = await store.getVectors(T, [a.id, b.id, 'missing']);
      expect([...got.keys()]).toEqual([a.id]);
      expect(Array.from(got.get(a.id)!)).toEqual(Array.from(v1));
      expect(got.get(a.id)).toBeInstanceOf(Float32Array);
    });

    test("getVectors returns the caller's own copies: writing into one changes neither the store nor another", async () => {
      const T = tenant();
      const axis = (i: number): Float32Array => Float32Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
      const rows = [0, 1, 2].map((i) => withVector(axis(i), 'test-model', { scope: { tenant: T } }));
      await store.insert(rows);
      // A search first, so a store that caches vectors answers from its cache.
      await store.denseSearch({ filter: { scope: { tenant: T } }, vector: axis(0), model: 'test-model', limit: 3 });
      const got = await store.getVectors(T, ids(rows));
      const first = got.get(rows[0]!.id)!;
      first.fill(7);
      expect(Array.from(got.get(rows[1]!.id)!)).toEqual(Array.from(axis(1)));
      const again = await store.getVectors(T, ids(rows));
      expect(rows.map((r) => Array.from(again.get(r.id)!))).toEqual([0, 1, 2].map((i) => Array.from(axis(i))));
    });

    test('storedCosines (when implemented) gives maxCosine over getVectors bit for bit, also from a cache, after new vectors and a delete', async () => {
      if (!store.storedCosines) return;
      const T = tenant();
      const random = seededRandom(5);
      const axis = (i: number, scale = 1): Float32Array =>
        Float32Array.from({ length: 8 }, (_, j) => (j === i ? scale : 0));
      // Unit vectors a cache holds as given, others it rescales, and random ones.
      // Last: a vector kept as given whose squared norm in float32 is not exactly 1.
      const tilted = Float32Array.from({ length: 8 }, (_, j) => (j === 5 ? 0.6 : j === 6 ? 0.8 : 0));
      const vectors = [axis(0), axis(1), axis(2, 3), ...[0, 1, 2, 3].map(() => randomVector(random, 8)), tilted];
      const rows = vectors.map((v) => withVector(v, 'test-model', { scope: { tenant: T } }));
      const bare = makeRecord({ scope: { tenant: T } });
      const foreign = withVector(axis(3), 'test-model', { scope: { tenant: tenant() } });
      await store.insert([...rows, bare, foreign]);
      const asked = [...ids(rows), bare.id, foreign.id, 'missing'];
      const check = async (round: string): Promise<void> => {
        const stored = await store.getVectors(T, asked);
        for (const queries of [[randomVector(random, 8)], [axis(1), randomVector(random, 8), new Float32Array(8)], []]) {
          const got = await store.storedCosines!(T, asked, queries);
          expect([...got.keys()].sort(), round).toEqual(ids(rows).sort());
          for (const [id, vector] of stored) expect(Object.is(got.get(id), maxCosine(vector, queries)), `${round} ${id}`).toBe(true);
        }
      };
      await check('read from the rows');
      await store.denseSearch({ filter: { scope: { tenant: T } }, vector: axis(0), model: 'test-model', limit: 3 });
      await check('after a search, from a cache where there is one');
      await store.update(T, rows[0]!.id, { updatedAt: at(900) }, { vector: randomVector(random, 8), embedding: { model: 'test-model', dim: 8 } });
      await store.update(T, rows[1]!.id, { updatedAt: at(900) }, { vector: axis(4), embedding: { model: 'test-model', dim: 8 } });
      await check('after two vectors changed');
      // A cache that fills the hole of a deleted row with another row must move that row's norm with it.
      await store.delete(T, [rows[2]!.id]);
      rows.splice(2, 1);
      await check('after a delete');
      expect((await store.storedCosines(T, [], [axis(0)])).size).toBe(0);
      await expectCode(store.storedCosines('', ids(rows), [axis(0)]), 'INVALID_SCOPE');
      await expectCode(store.storedCosines(T, ids(rows), [[1, 0] as unknown as Float32Array]), 'INVALID_VECTOR');
    });

    test('getTexts (when implemented) returns text, updatedAt and type of the tenant rows only', async () => {
      if (!store.getTexts) return;
      const T = tenant();
      const a = makeRecord({ scope: { tenant: T }, text: 'Ünïcode text 東京 🍣', type: 'SkillMemory' });
      const other = makeRecord({ scope: { tenant: tenant() } });
      await store.insert([a]);
      await store.insert([other]);
      const got = await store.getTexts(T, [a.id, other.id, 'missing']);
      expect(got).toEqual([{ id: a.id, text: a.text, updatedAt: a.updatedAt, type: 'SkillMemory' }]);
      expect(await store.getTexts(T, [])).toEqual([]);
    });

    test('getTexts with context (when given) returns background, statedAt and speaker names', async () => {
      if (!store.getTexts) return;
      const T = tenant();
      const a = makeRecord({
        scope: { tenant: T },
        background: 'what did you paint?',
        statedAt: '2023-05-08T13:56:00.000Z',
        sources: [
          { type: 'chat', role: 'Caroline' },
          { type: 'doc', role: 'author' },
          { type: 'chat', role: 'Caroline' },
        ],
        metadata: { speaker: 'Caroline Smith', speakerNote: 1 },
      });
      const b = makeRecord({ scope: { tenant: T }, metadata: { speaker: '  ' } });
      await store.insert([a, b]);
      const got = new Map((await store.getTexts(T, [a.id, b.id, 'missing'], { context: true })).map((t) => [t.id, t]));
      expect([...got.keys()].sort()).toEqual([a.id, b.id].sort());
      expect(got.get(a.id)).toEqual({
        id: a.id,
        text: a.text,
        updatedAt: a.updatedAt,
        type: a.type,
        context: { background: a.background, statedAt: a.statedAt, speakers: ['Caroline', 'Caroline Smith'] },
      });
      expect(got.get(b.id)?.context).toEqual({ background: null, statedAt: null, speakers: [] });
      expect((await store.getTexts(T, [a.id]))[0]?.context).toBeUndefined();
    });

    test('insert of an empty batch is a no-op', async () => {
      const T = tenant();
      await store.insert([]);
      expect(await store.count({ scope: { tenant: T } })).toBe(0);
    });

    test('insert rejects an existing id with CONFLICT and stores nothing of the batch', async () => {
      const T = tenant();
      const first = makeRecord({ scope: { tenant: T } });
      await store.insert([first]);
      const fresh = makeRecord({ scope: { tenant: T } });
      await expectCode(
        store.insert([fresh, makeRecord({ id: first.id, scope: { tenant: T }, text: 'other' })]),
        'CONFLICT',
      );
      expect(await store.get(T, [fresh.id])).toEqual([]);
      expect((await store.get(T, [first.id]))[0]?.text).toBe(first.text);
    });

    test('insert rejects a duplicate id inside one batch and stores nothing', async () => {
      const T = tenant();
      const a = makeRecord({ scope: { tenant: T } });
      const b = makeRecord({ scope: { tenant: T } });
      await expectCode(store.insert([a, b, { ...a, text: 'again' }]), 'CONFLICT');
      expect(await store.count({ scope: { tenant: T }, statuses: ['activated', 'archived', 'deleted'] })).toBe(0);
    });

    test('insert rejects an invalid row and stores nothing of the batch', async () => {
      const T = tenant();
      const good = makeRecord({ scope: { tenant: T } });
      const bad = makeRecord({ scope: { tenant: T }, type: 'NoSuchType' as MemoryRecord['type'] });
      await expect(store.insert([good, bad])).rejects.toBeInstanceOf(EngramError);
      const noTenant = makeRecord({ scope: { tenant: '' } });
      await expectCode(store.insert([makeRecord({ scope: { tenant: T } }), noTenant]), 'INVALID_SCOPE');
      expect(await store.count({ scope: { tenant: T } })).toBe(0);
    });

    test('insert rejects NaN or Infinity vectors with INVALID_VECTOR', async () => {
      const T = tenant();
      const good = withVector(new Float32Array([1, 0, 0, 0]), 'test-model', { scope: { tenant: T } });
      for (const badValue of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        const v = new Float32Array([0.5, badValue, 0.1, 0.2]);
        await expectCode(store.insert([good, withVector(v, 'test-model', { scope: { tenant: T } })]), 'INVALID_VECTOR');
      }
      expect(await store.count({ scope: { tenant: T } })).toBe(0);
    });

    test('insert rejects a vector whose length differs from embedding.dim', async () => {
      const T = tenant();
      const r = makeRecord({
        scope: { tenant: T },
        vector: new Float32Array(4),
        embedding: { model: 'test-model', dim: 5 },
      });
      await expectCode(store.insert([r]), 'DIMENSION_MISMATCH');
      expect(await store.count({ scope: { tenant: T } })).toBe(0);
    });

    test('insert rejects lone surrogates and NUL with INVALID_TEXT', async () => {
      const T = tenant();
      const cases: Array<Partial<MemoryRecord>> = [
        { text: 'broken \uD83D here' },
        { text: 'broken \uDE00 here' },
        { text: 'nul \u0000 here' },
        { summary: 'lone \uD800' },
        { tags: ['ok', 'bad\uDFFF'] },
        { metadata: { note: 'bad \uD83D' } },
        { metadata: { ['k\uD800']: 1 } },
      ];
      for (const overrides of cases) {
        await expectCode(store.insert([makeRecord({ scope: { tenant: T }, ...overrides })]), 'INVALID_TEXT');
      }
      // A well-formed surrogate pair is fine.
      await store.insert([makeRecord({ scope: { tenant: T }, text: 'ok \uD83D\uDE00' })]);
      expect(await store.count({ scope: { tenant: T } })).toBe(1);
    });

    test('the same id may exist in two tenants independently', async () => {
      const A = tenant('A');
      const B = tenant('B');
      const id = testId('shared');
      await store.insert([makeRecord({ id, scope: { tenant: A }, text: 'alpha text' })]);
      await store.insert([makeRecord({ id, scope: { tenant: B }, text: 'beta text' })]);
      expect((await store.get(A, [id]))[0]?.text).toBe('alpha text');
      expect((await store.get(B, [id]))[0]?.text).toBe('beta text');
      expect(await store.delete(B, [id])).toBe(1);
      expect((await store.get(A, [id]))[0]?.text).toBe('alpha text');
    });

    // ---------------------------------------------------------------- update / delete

    test('update applies patch semantics', async () => {
      const T = tenant();
      const r = makeRecord({
        scope: { tenant: T },
        key: 'k1',
        tags: ['a'],
        summary: 's',
        metadata: { x: 1 },
        statedAt: at(1),
      });
      await store.insert([r]);
      const updated = await store.update(T, r.id, { text: 'new text', tags: ['b', 'c'], updatedAt: at(500) });
      expect(updated).not.toBeNull();
      expect(updated).toMatchObject({
        id: r.id,
        text: 'new text',
        tags: ['b', 'c'],
        key: 'k1',
        summary: 's',
        metadata: { x: 1 },
        statedAt: at(1),
        createdAt: r.createdAt,
        updatedAt: at(500),
        scope: r.scope,
        type: r.type,
      });
      const [reread] = await store.get(T, [r.id]);
      expect(reread).toEqual(updated);
      const second = await store.update(T, r.id, {
        metadata: { y: [2] },
        status: 'archived',
        type: 'WorkingMemory',
        level: 'topic',
        updatedAt: at(600),
      });
      expect(second).toMatchObject({
        metadata: { y: [2] },
        status: 'archived',
        type: 'WorkingMemory',
        level: 'topic',
        text: 'new text',
        tags: ['b', 'c'],
      });
    });

    test('update sets nullable fields to null', async () => {
      const T = tenant();
      const r = makeRecord({
        scope: { tenant: T },
        key: 'k',
        summary: 's',
        background: 'b',
        level: 'fact',
        statedAt: at(3),
      });
      await store.insert([r]);
      const updated = await store.update(T, r.id, {
        key: null,
        summary: null,
        background: null,
        level: null,
        statedAt: null,
        updatedAt: at(9),
      });
      expect(updated).toMatchObject({ key: null, summary: null, background: null, level: null, statedAt: null });
    });

    test('update replaces the vector and embedding info', async () => {
      const T = tenant();
      const r = withVector(new Float32Array([1, 0, 0, 0]), 'model-a', { scope: { tenant: T } });
      await store.insert([r]);
      const next = new Float32Array([0, 0, 1, 0, 0, 0]);
      const updated = await store.update(
        T,
        r.id,
        { updatedAt: at(77) },
        { vector: next, embedding: { model: 'model-b', dim: 6 } },
      );
      expect(updated?.embedding).toEqual({ model: 'model-b', dim: 6 });
      expect(Array.from((await store.getVectors(T, [r.id])).get(r.id)!)).toEqual(Array.from(next));
      const hits = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: next,
        model: 'model-b',
        limit: 5,
      });
      expect(ids(hits)).toEqual([r.id]);
      expect(
        await store.denseSearch({
          filter: { scope: { tenant: T } },
          vector: new Float32Array([1, 0, 0, 0]),
          model: 'model-a',
          limit: 5,
        }),
      ).toEqual([]);
    });

    test('update with vector null clears the vector', async () => {
      const T = tenant();
      const r = withVector(new Float32Array([1, 2, 3]), 'test-model', { scope: { tenant: T } });
      await store.insert([r]);
      const updated = await store.update(T, r.id, { updatedAt: at(5) }, null);
      expect(updated?.embedding).toBeNull();
      expect((await store.getVectors(T, [r.id])).size).toBe(0);
      expect(
        await store.denseSearch({
          filter: { scope: { tenant: T } },
          vector: new Float32Array([1, 2, 3]),
          model: 'test-model',
          limit: 3,
        }),
      ).toEqual([]);
    });

    test('update without a vector argument keeps the vector', async () => {
      const T = tenant();
      const v = new Float32Array([0.25, -0.5, 0.75]);
      const r = withVector(v, 'test-model', { scope: { tenant: T } });
      await store.insert([r]);
      await store.update(T, r.id, { text: 'changed', updatedAt: at(5) });
      expect(Array.from((await store.getVectors(T, [r.id])).get(r.id)!)).toEqual(Array.from(v));
      expect((await store.get(T, [r.id]))[0]?.embedding).toEqual({ model: 'test-model', dim: 3 });
    });

    test('update of a missing id returns null', async () => {
      const T = tenant();
      expect(await store.update(T, 'nope', { text: 'x', updatedAt: at(1) })).toBeNull();
    });

    test('update rejects invalid patches and changes nothing', async () => {
      const T = tenant();
      const r = makeRecord({ scope: { tenant: T }, text: 'original' });
      await store.insert([r]);
      await expectCode(store.update(T, r.id, { text: 'bad \uD800', updatedAt: at(2) }), 'INVALID_TEXT');
      await expectCode(
        store.update(
          T,
          r.id,
          { updatedAt: at(2) },
          { vector: new Float32Array([Number.NaN, 1]), embedding: { model: 'm', dim: 2 } },
        ),
        'INVALID_VECTOR',
      );
      expect((await store.get(T, [r.id]))[0]).toEqual(expected(r));
    });

    test('update changes what lexicalSearch finds', async () => {
      const T = tenant();
      const r = makeRecord({ scope: { tenant: T }, text: 'the quokka is happy' });
      await store.insert([r]);
      expect(ids(await store.lexicalSearch({ filter: { scope: { tenant: T } }, terms: ['quokka'], limit: 5 }))).toEqual(
        [r.id],
      );
      await store.update(T, r.id, { text: 'the wombat is sleepy', updatedAt: at(3) });
      expect(await store.lexicalSearch({ filter: { scope: { tenant: T } }, terms: ['quokka'], limit: 5 })).toEqual([]);
      expect(ids(await store.lexicalSearch({ filter: { scope: { tenant: T } }, terms: ['wombat'], limit: 5 }))).toEqual(
        [r.id],
      );
    });

    test('delete removes rows and returns the count', async () => {
      const T = tenant();
      const rs = [0, 1, 2].map(() =>
        withVector(randomVector(seededRandom(7), 4), 'test-model', {
          scope: { tenant: T },
          text: 'deletable platypus',
        }),
      );
      await store.insert(rs);
      expect(await store.delete(T, [rs[0]!.id, rs[1]!.id, 'missing'])).toBe(2);
      expect(ids(await store.get(T, ids(rs)))).toEqual([rs[2]!.id]);
      expect(await store.count({ scope: { tenant: T } })).toBe(1);
      expect(
        ids(await store.lexicalSearch({ filter: { scope: { tenant: T } }, terms: ['platypus'], limit: 10 })),
      ).toEqual([rs[2]!.id]);
      expect((await store.getVectors(T, ids(rs))).size).toBe(1);
    });

    test('delete of missing ids returns 0', async () => {
      const T = tenant();
      expect(await store.delete(T, ['a', 'b'])).toBe(0);
      expect(await store.delete(T, [])).toBe(0);
    });

    // ---------------------------------------------------------------- list / count / stats

    async function seedListRows(T: string): Promise<MemoryRecord[]> {
      const rows = [
        makeRecord({
          scope: { tenant: T, user: 'u1', agent: 'a1', session: 's1', collection: 'c1' },
          type: 'UserMemory',
          tags: ['x', 'y'],
          key: 'k1',
          createdAt: at(1),
          updatedAt: at(40),
          statedAt: at(300),
        }),
        makeRecord({
          scope: { tenant: T, user: 'u1', agent: 'a2', session: 's2', collection: 'c1' },
          type: 'LongTermMemory',
          tags: ['x'],
          key: 'k2',
          createdAt: at(2),
          updatedAt: at(30),
          statedAt: null,
        }),
        makeRecord({
          scope: { tenant: T, user: 'u2', agent: 'a1', session: 's1', collection: 'c2' },
          type: 'UserMemory',
          tags: ['y'],
          key: 'k1',
          createdAt: at(3),
          updatedAt: at(20),
          statedAt: at(100),
        }),
        makeRecord({
          scope: { tenant: T, user: 'u2' },
          type: 'WorkingMemory',
          tags: [],
          createdAt: at(4),
          updatedAt: at(10),
          statedAt: at(200),
          status: 'archived',
        }),
        makeRecord({
          scope: { tenant: T },
          type: 'LongTermMemory',
          tags: ['x', 'y', 'z'],
          createdAt: at(5),
          updatedAt: at(50),
          statedAt: null,
          status: 'deleted',
        }),
      ];
      await store.insert(rows);
      return rows;
    }

    test('list defaults to activated rows, oldest first', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      const page = await store.list({ scope: { tenant: T } });
      expect(ids(page.items)).toEqual([rows[0]!.id, rows[1]!.id, rows[2]!.id]);
      expect(page.nextCursor).toBeNull();
      expect(page.items[0]).toEqual(expected(rows[0]!));
    });

    test('list filters by types', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      expect(ids((await store.list({ scope: { tenant: T }, types: ['UserMemory'] })).items)).toEqual([
        rows[0]!.id,
        rows[2]!.id,
      ]);
      expect(ids((await store.list({ scope: { tenant: T }, types: ['UserMemory', 'LongTermMemory'] })).items)).toEqual([
        rows[0]!.id,
        rows[1]!.id,
        rows[2]!.id,
      ]);
    });

    test('list filters by statuses', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      expect(ids((await store.list({ scope: { tenant: T }, statuses: ['archived'] })).items)).toEqual([rows[3]!.id]);
      expect(ids((await store.list({ scope: { tenant: T }, statuses: ['archived', 'deleted'] })).items)).toEqual([
        rows[3]!.id,
        rows[4]!.id,
      ]);
      expect(
        (await store.list({ scope: { tenant: T }, statuses: ['activated', 'archived', 'deleted'] })).items,
      ).toHaveLength(5);
    });

    test('list filters by tags (all of)', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      const all = ['activated', 'archived', 'deleted'] as const;
      expect(ids((await store.list({ scope: { tenant: T }, tags: ['x'], statuses: [...all] })).items)).toEqual([
        rows[0]!.id,
        rows[1]!.id,
        rows[4]!.id,
      ]);
      expect(ids((await store.list({ scope: { tenant: T }, tags: ['x', 'y'], statuses: [...all] })).items)).toEqual([
        rows[0]!.id,
        rows[4]!.id,
      ]);
      expect(
        ids((await store.list({ scope: { tenant: T }, tags: ['y', 'z', 'x'], statuses: [...all] })).items),
      ).toEqual([rows[4]!.id]);
      expect((await store.list({ scope: { tenant: T }, tags: ['nope'] })).items).toEqual([]);
    });

    test('list filters by key', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      expect(ids((await store.list({ scope: { tenant: T }, key: 'k1' })).items)).toEqual([rows[0]!.id, rows[2]!.id]);
      expect((await store.list({ scope: { tenant: T }, key: 'none' })).items).toEqual([]);
    });

    test('list with one type or status, several, or none: one value is not a special case', async () => {
      const T = tenant();
      const rows = [
        makeRecord({ scope: { tenant: T }, type: 'WorkingMemory', updatedAt: at(3) }),
        makeRecord({ scope: { tenant: T }, type: 'WorkingMemory', updatedAt: at(1), status: 'archived' }),
        makeRecord({ scope: { tenant: T }, type: 'UserMemory', updatedAt: at(2) }),
        makeRecord({ scope: { tenant: T }, type: 'WorkingMemory', updatedAt: at(5) }),
      ];
      await store.insert(rows);
      const list = async (filter: Partial<MemoryFilter>): Promise<string[]> =>
        ids((await store.list({ scope: { tenant: T }, ...filter }, { order: 'updatedAt', direction: 'desc' })).items);
      expect(await list({ types: ['WorkingMemory'] })).toEqual([rows[3]!.id, rows[0]!.id]);
      expect(await list({ types: ['WorkingMemory'], statuses: ['archived'] })).toEqual([rows[1]!.id]);
      expect(await list({ types: ['WorkingMemory', 'UserMemory'] })).toEqual([rows[3]!.id, rows[0]!.id, rows[2]!.id]);
      expect(await list({ types: ['WorkingMemory'], statuses: ['activated', 'archived'] })).toEqual([
        rows[3]!.id,
        rows[0]!.id,
        rows[1]!.id,
      ]);
      expect(await list({ types: [] })).toEqual([]);
      expect(await list({ statuses: [] })).toEqual([]);
    });

    test('list filters by ids', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      expect(
        ids(
          (await store.list({ scope: { tenant: T }, ids: [rows[2]!.id, rows[0]!.id, rows[3]!.id, 'missing'] })).items,
        ),
      ).toEqual([rows[0]!.id, rows[2]!.id]);
      expect((await store.list({ scope: { tenant: T }, ids: [] })).items).toEqual([]);
    });

    test('list filters by scope fields', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      expect(ids((await store.list({ scope: { tenant: T, user: 'u1' } })).items)).toEqual([rows[0]!.id, rows[1]!.id]);
      expect(ids((await store.list({ scope: { tenant: T, agent: 'a1' } })).items)).toEqual([rows[0]!.id, rows[2]!.id]);
      expect(ids((await store.list({ scope: { tenant: T, session: 's2' } })).items)).toEqual([rows[1]!.id]);
      expect(ids((await store.list({ scope: { tenant: T, collection: 'c1' } })).items)).toEqual([
        rows[0]!.id,
        rows[1]!.id,
      ]);
      expect(
        ids(
          (await store.list({ scope: { tenant: T, user: 'u2', agent: 'a1', session: 's1', collection: 'c2' } })).items,
        ),
      ).toEqual([rows[2]!.id]);
      expect((await store.list({ scope: { tenant: T, user: 'u3' } })).items).toEqual([]);
    });

    test('list pages with a cursor without repeats or gaps', async () => {
      const T = tenant();
      const rows = Array.from({ length: 23 }, (_, i) =>
        makeRecord({ scope: { tenant: T }, createdAt: at(1000 + (i % 5)) }),
      );
      await store.insert(rows);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list({ scope: { tenant: T } }, { limit: 5, cursor });
        expect(page.items.length).toBeLessThanOrEqual(5);
        seen.push(...ids(page.items));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined && pages < 20);
      expect(pages).toBe(5);
      expect(new Set(seen).size).toBe(23);
      expect(seen.sort()).toEqual(ids(rows).sort());
    });

    test('list paging is stable under inserts', async () => {
      const T = tenant();
      const rows = Array.from({ length: 12 }, (_, i) =>
        makeRecord({ scope: { tenant: T }, createdAt: at(2000 + i * 2) }),
      );
      await store.insert(rows);
      const seen: string[] = [];
      let cursor: string | undefined;
      let round = 0;
      do {
        const page = await store.list({ scope: { tenant: T } }, { limit: 4, cursor });
        seen.push(...ids(page.items));
        cursor = page.nextCursor ?? undefined;
        // Inserts both before and after the cursor position while paging.
        await store.insert([
          makeRecord({ scope: { tenant: T }, createdAt: at(1000 + round) }),
          makeRecord({ scope: { tenant: T }, createdAt: at(2000 + round * 8 + 7) }),
        ]);
        round++;
      } while (cursor !== undefined && round < 20);
      const originals = seen.filter((id) => rows.some((r) => r.id === id));
      expect(originals).toEqual(ids(rows));
      expect(new Set(seen).size).toBe(seen.length);
    });

    test('newestIds (when implemented) gives the ids and last updates of list by updatedAt desc, rows unread', async () => {
      if (!store.newestIds) return;
      const T = tenant();
      await seedListRows(T);
      await store.insert([makeRecord({ scope: { tenant: tenant() } })]);
      for (const filter of [
        { scope: { tenant: T } },
        {
          scope: { tenant: T },
          statuses: ['activated', 'archived', 'deleted'] as Array<'activated' | 'archived' | 'deleted'>,
        },
      ]) {
        for (const limit of [1, 3, 50]) {
          const page = await store.list(filter, { order: 'updatedAt', direction: 'desc', limit });
          expect(await store.newestIds(filter, limit)).toEqual(
            page.items.map((m) => ({ id: m.id, updatedAt: m.updatedAt })),
          );
        }
      }
      await expectCode(store.newestIds({ scope: { tenant: T } }, 0), 'INVALID_LIMIT');
    });

    test('newestIds with storedCosinesWith gives the same rows, each cosine it gives as storedCosines does', async () => {
      if (!store.newestIds) return;
      const T = tenant();
      const random = seededRandom(41);
      await store.insert(
        Array.from({ length: 12 }, (_, i) => {
          const raw = randomVector(random, 8);
          const vector = i % 2 === 0 ? (unitVector(raw) as Float32Array) : raw;
          return withVector(vector, 'test-model', { scope: { tenant: T }, updatedAt: at(i) });
        }),
      );
      const filter = { scope: { tenant: T } };
      // A store with a vector cache answers from it once it holds the rows.
      await store.denseSearch({ filter, vector: randomVector(random, 8), model: 'test-model', limit: 3 });
      const vectors = [randomVector(random, 8), randomVector(random, 8)];
      const plain = await store.newestIds(filter, 10);
      const scored = await store.newestIds(filter, 10, { storedCosinesWith: vectors });
      expect(scored.map((r) => ({ id: r.id, updatedAt: r.updatedAt }))).toEqual(plain);
      await expectStoredCosines(store, T, scored, vectors);
      // Naming the vectors' space changes no row and no cosine a store gives.
      const inSpace = await store.newestIds(filter, 10, {
        storedCosinesWith: vectors,
        space: { model: 'test-model', dim: 8 },
      });
      expect(inSpace.map((r) => ({ id: r.id, updatedAt: r.updatedAt }))).toEqual(plain);
      await expectStoredCosines(store, T, inSpace, vectors);
      await expectCode(
        store.newestIds(filter, 5, { storedCosinesWith: 'v' as unknown as Float32Array[] }),
        'INVALID_VECTOR',
      );
      await expectCode(
        store.newestIds(filter, 5, { storedCosinesWith: vectors, space: { model: '', dim: 8 } }),
        'INVALID_INPUT',
      );
      await expectCode(
        store.newestIds(filter, 5, { storedCosinesWith: vectors, space: { model: 'test-model', dim: 9 } }),
        'DIMENSION_MISMATCH',
      );
    });

    test('newestIds with validAt gives what list gives at every instant, also after writes', async () => {
      if (!store.newestIds) return;
      const T = tenant();
      const scope = { tenant: T };
      // Newest first: ended at 20, starting at 30, then two always valid.
      const rows = [
        makeRecord({ scope, createdAt: at(1), updatedAt: at(50), validFrom: at(1), validTo: at(20) }),
        makeRecord({ scope, createdAt: at(2), updatedAt: at(40), validFrom: at(30) }),
        makeRecord({ scope, createdAt: at(3), updatedAt: at(30) }),
        makeRecord({ scope, createdAt: at(4), updatedAt: at(20) }),
      ];
      await store.insert(rows);
      const expectAsList = async (): Promise<void> => {
        for (const when of [at(0), at(10), at(25), at(35)]) {
          for (const limit of [1, 2, 4, 10]) {
            const filter = { scope, validAt: when };
            const page = await store.list(filter, { order: 'updatedAt', direction: 'desc', limit });
            expect(await store.newestIds!(filter, limit)).toEqual(
              page.items.map((m) => ({ id: m.id, updatedAt: m.updatedAt })),
            );
          }
        }
      };
      await expectAsList();
      await store.insert([makeRecord({ scope, createdAt: at(5), updatedAt: at(60), validFrom: at(5), validTo: at(26) })]);
      await expectAsList();
      await store.update(T, (rows[3] as MemoryRecord).id, { updatedAt: at(70) });
      await expectAsList();
      await store.update(T, (rows[2] as MemoryRecord).id, { status: 'archived', updatedAt: at(80) });
      await expectAsList();
    });

    test('list orders by updatedAt and statedAt in both directions', async () => {
      const T = tenant();
      const rows = await seedListRows(T);
      const all = {
        scope: { tenant: T },
        statuses: ['activated', 'archived', 'deleted'] as Array<'activated' | 'archived' | 'deleted'>,
      };
      const [r0, r1, r2, r3, r4] = rows.map((r) => r.id) as [string, string, string, string, string];
      expect(ids((await store.list(all, { order: 'updatedAt' })).items)).toEqual([r3, r2, r1, r0, r4]);
      expect(ids((await store.list(all, { order: 'updatedAt', direction: 'desc' })).items)).toEqual([
        r4,
        r0,
        r1,
        r2,
        r3,
      ]);
      expect(ids((await store.list(all, { order: 'createdAt', direction: 'desc' })).items)).toEqual([
        r4,
        r3,
        r2,
        r1,
        r0,
      ]);
      // Missing statedAt sorts first ascending, last descending; ties break by id.
      const nulls = [r1, r4].sort();
      expect(ids((await store.list(all, { order: 'statedAt' })).items)).toEqual([...nulls, r2, r3, r0]);
      expect(ids((await store.list(all, { order: 'statedAt', direction: 'desc' })).items)).toEqual([
        r0,
        r3,
        r2,
        ...nulls.reverse(),
      ]);
      // Paging in desc order by statedAt visits everything once.
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list(all, { order: 'statedAt', direction: 'desc', limit: 2, cursor });
        seen.push(...ids(page.items));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(seen).toEqual([r0, r3, r2, ...[r1, r4].sort().reverse()]);
    });

    test('list rejects an invalid limit with INVALID_LIMIT', async () => {
      const T = tenant();
      await expectCode(store.list({ scope: { tenant: T } }, { limit: 0 }), 'INVALID_LIMIT');
      await expectCode(store.list({ scope: { tenant: T } }, { limit: -3 }), 'INVALID_LIMIT');
      await expectCode(store.list({ scope: { tenant: T } }, { limit: 2.5 }), 'INVALID_LIMIT');
    });

    test('list rejects a malformed cursor with INVALID_INPUT', async () => {
      const T = tenant();
      await expectCode(store.list({ scope: { tenant: T } }, { cursor: 'not a cursor' }), 'INVALID_INPUT');
    });

    test('filters without a tenant are rejected with INVALID_SCOPE', async () => {
      await expectCode(store.list({ scope: { tenant: '' } }), 'INVALID_SCOPE');
      await expectCode(store.count({ scope: {} as { tenant: string } }), 'INVALID_SCOPE');
      await expectCode(store.get('', ['x']), 'INVALID_SCOPE');
    });

    test('count matches list', async () => {
      const T = tenant();
      await seedListRows(T);
      expect(await store.count({ scope: { tenant: T } })).toBe(3);
      expect(await store.count({ scope: { tenant: T }, statuses: ['activated', 'archived', 'deleted'] })).toBe(5);
      expect(await store.count({ scope: { tenant: T, user: 'u1' }, tags: ['x'] })).toBe(2);
      expect(await store.count({ scope: { tenant: T }, types: ['UserMemory'], key: 'k1' })).toBe(2);
      expect(await store.count({ scope: { tenant: tenant('empty') } })).toBe(0);
    });

    test('stats reports byType, byStatus and models', async () => {
      const T = tenant();
      await seedListRows(T);
      await store.insert([
        withVector(new Float32Array(4), 'model-a', { scope: { tenant: T } }),
        withVector(new Float32Array(4), 'model-a', { scope: { tenant: T } }),
        withVector(new Float32Array(8), 'model-b', { scope: { tenant: T }, type: 'UserMemory' }),
      ]);
      const stats = await store.stats({ scope: { tenant: T }, statuses: ['activated', 'archived', 'deleted'] });
      expect(stats.total).toBe(8);
      expect(stats.byType).toEqual({ UserMemory: 3, LongTermMemory: 4, WorkingMemory: 1 });
      expect(stats.byStatus).toEqual({ activated: 6, archived: 1, deleted: 1 });
      expect([...stats.models].sort((a, b) => a.model.localeCompare(b.model))).toEqual([
        { model: 'model-a', dim: 4, count: 2 },
        { model: 'model-b', dim: 8, count: 1 },
      ]);
      const active = await store.stats({ scope: { tenant: T } });
      expect(active.total).toBe(6);
      expect(active.byStatus).toEqual({ activated: 6 });
      const empty = await store.stats({ scope: { tenant: tenant('empty') } });
      expect(empty).toEqual({ total: 0, byType: {}, byStatus: {}, models: [] });
    });

    // ---------------------------------------------------------------- dense search

    async function seedVectors(
      T: string,
      n: number,
      dim: number,
      seed: number,
      extra: (i: number) => Partial<MemoryRecord> = () => ({}),
    ): Promise<MemoryRecord[]> {
      const random = seededRandom(seed);
      const rows = Array.from({ length: n }, (_, i) =>
        withVector(randomVector(random, dim), 'test-model', { scope: { tenant: T }, ...extra(i) }),
      );
      await store.insert(rows);
      return rows;
    }

    function bruteForce(
      rows: MemoryRecord[],
      query: Float32Array,
      limit: number,
      keep: (r: MemoryRecord) => boolean = () => true,
    ): Array<{ id: string; cosine: number }> {
      return rows
        .filter((r) => r.vector !== null && r.embedding?.model === 'test-model' && r.status === 'activated' && keep(r))
        .map((r) => ({ id: r.id, cosine: jsCosine(r.vector!, query) }))
        .sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
    }

    function expectSameHits(
      got: Array<{ id: string; cosine: number }>,
      want: Array<{ id: string; cosine: number }>,
    ): void {
      expect(ids(got)).toEqual(ids(want));
      got.forEach((hit, i) => {
        expect(Number.isNaN(hit.cosine)).toBe(false);
        expect(Math.abs(hit.cosine - want[i]!.cosine)).toBeLessThan(1e-5);
      });
    }

    test('denseSearch returns the exact top-k of a brute-force cosine', async () => {
      const T = tenant();
      const rows = await seedVectors(T, 400, 32, 11);
      const random = seededRandom(99);
      for (let q = 0; q < 10; q++) {
        const query = randomVector(random, 32);
        for (const limit of [1, 10, 50]) {
          const got = await store.denseSearch({
            filter: { scope: { tenant: T } },
            vector: query,
            model: 'test-model',
            limit,
          });
          expectSameHits(got, bruteForce(rows, query, limit));
        }
      }
      const all = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: randomVector(random, 32),
        model: 'test-model',
        limit: 1000,
      });
      expect(all).toHaveLength(400);
    });

    test('denseSearch never returns rows of another embedding model', async () => {
      const T = tenant();
      const rows = await seedVectors(T, 50, 16, 12);
      const query = randomVector(seededRandom(5), 16);
      // Same dimension, different model: identical vector to the query must still not appear.
      const other = withVector(query, 'other-model', { scope: { tenant: T } });
      await store.insert([other]);
      const got = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: query,
        model: 'test-model',
        limit: 60,
      });
      expect(ids(got)).not.toContain(other.id);
      expectSameHits(got, bruteForce(rows, query, 60));
      const otherHits = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: query,
        model: 'other-model',
        limit: 10,
      });
      expect(ids(otherHits)).toEqual([other.id]);
      expect(otherHits[0]!.cosine).toBeCloseTo(1, 5);
      expect(
        await store.denseSearch({ filter: { scope: { tenant: T } }, vector: query, model: 'unknown-model', limit: 10 }),
      ).toEqual([]);
    });

    test('denseSearch narrows by user, agent, session and collection', async () => {
      const T = tenant();
      const rows = await seedVectors(T, 240, 16, 13, (i) => ({
        scope: {
          tenant: T,
          user: `u${i % 3}`,
          agent: `a${i % 4}`,
          session: `s${i % 5}`,
          collection: i % 2 === 0 ? 'even' : undefined,
        },
      }));
      const query = randomVector(seededRandom(6), 16);
      const cases: Array<Partial<Record<'user' | 'agent' | 'session' | 'collection', string>>> = [
        { user: 'u1' },
        { agent: 'a2' },
        { session: 's4' },
        { collection: 'even' },
        { user: 'u2', agent: 'a1' },
        { user: 'u0', session: 's0', collection: 'even' },
        { user: 'nobody' },
      ];
      for (const narrow of cases) {
        const got = await store.denseSearch({
          filter: { scope: { tenant: T, ...narrow } },
          vector: query,
          model: 'test-model',
          limit: 7,
        });
        const want = bruteForce(rows, query, 7, (r) =>
          Object.entries(narrow).every(([field, value]) => r.scope[field as 'user'] === value),
        );
        expectSameHits(got, want);
      }
    });

    test('denseSearch excludes archived and deleted rows by default', async () => {
      const T = tenant();
      const statuses = ['activated', 'archived', 'deleted'] as const;
      const rows = await seedVectors(T, 90, 16, 14, (i) => ({ status: statuses[i % 3] }));
      const query = randomVector(seededRandom(7), 16);
      const got = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: query,
        model: 'test-model',
        limit: 100,
      });
      expect(got).toHaveLength(30);
      expectSameHits(got, bruteForce(rows, query, 100));
      const archived = await store.denseSearch({
        filter: { scope: { tenant: T }, statuses: ['archived'] },
        vector: query,
        model: 'test-model',
        limit: 100,
      });
      expect(archived).toHaveLength(30);
      expect(new Set((await store.get(T, ids(archived))).map((m) => m.status))).toEqual(new Set(['archived']));
    });

    test('denseSearch filters by types, tags, key and ids exactly', async () => {
      const T = tenant();
      const types = ['UserMemory', 'LongTermMemory', 'WorkingMemory'] as const;
      const rows = await seedVectors(T, 300, 16, 15, (i) => ({
        type: types[i % 3],
        tags: i % 2 === 0 ? ['even', i % 10 === 0 ? 'tenth' : 'other'] : ['odd'],
        key: i % 7 === 0 ? 'seven' : null,
      }));
      const query = randomVector(seededRandom(8), 16);
      const filters: Array<[object, (r: MemoryRecord) => boolean]> = [
        [{ types: ['UserMemory'] }, (r) => r.type === 'UserMemory'],
        [{ types: ['UserMemory', 'WorkingMemory'] }, (r) => r.type !== 'LongTermMemory'],
        [{ tags: ['even'] }, (r) => r.tags.includes('even')],
        [{ tags: ['even', 'tenth'] }, (r) => r.tags.includes('tenth')],
        [{ key: 'seven' }, (r) => r.key === 'seven'],
        [{ ids: ids(rows.slice(0, 40)) }, (r) => rows.indexOf(r) < 40],
        [{ types: ['LongTermMemory'], tags: ['odd'] }, (r) => r.type === 'LongTermMemory' && r.tags.includes('odd')],
      ];
      for (const [extra, keep] of filters) {
        const got = await store.denseSearch({
          filter: { scope: { tenant: T }, ...extra },
          vector: query,
          model: 'test-model',
          limit: 9,
        });
        expectSameHits(got, bruteForce(rows, query, 9, keep));
      }
    });

    test('denseSearch sees inserts, updates and deletes', async () => {
      const T = tenant();
      const rows = await seedVectors(T, 60, 8, 16);
      const query = randomVector(seededRandom(9), 8);
      const before = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: query,
        model: 'test-model',
        limit: 5,
      });
      expectSameHits(before, bruteForce(rows, query, 5));
      // Insert an exact match: it must come first.
      const exact = withVector(query, 'test-model', { scope: { tenant: T } });
      await store.insert([exact]);
      const afterInsert = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: query,
        model: 'test-model',
        limit: 5,
      });
      expect(afterInsert[0]?.id).toBe(exact.id);
      // Archive it: gone by default.
      await store.update(T, exact.id, { status: 'archived', updatedAt: at(1) });
      expectSameHits(
        await store.denseSearch({ filter: { scope: { tenant: T } }, vector: query, model: 'test-model', limit: 5 }),
        bruteForce(rows, query, 5),
      );
      // Delete the best remaining row.
      await store.delete(T, [before[0]!.id]);
      const remaining = rows.filter((r) => r.id !== before[0]!.id);
      expectSameHits(
        await store.denseSearch({ filter: { scope: { tenant: T } }, vector: query, model: 'test-model', limit: 5 }),
        bruteForce(remaining, query, 5),
      );
      // Replace a vector: the row moves.
      const target = remaining[remaining.length - 1]!;
      await store.update(
        T,
        target.id,
        { updatedAt: at(2) },
        { vector: query, embedding: { model: 'test-model', dim: 8 } },
      );
      const moved = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: query,
        model: 'test-model',
        limit: 1,
      });
      expect(moved[0]?.id).toBe(target.id);
      expect(moved[0]?.cosine).toBeCloseTo(1, 5);
    });

    test('denseSearch returns cosine 0 for zero vectors, never NaN', async () => {
      const T = tenant();
      const zero = withVector(new Float32Array(4), 'test-model', { scope: { tenant: T } });
      const neg = withVector(new Float32Array([-1, -1, -1, -1]), 'test-model', { scope: { tenant: T } });
      const pos = withVector(new Float32Array([1, 2, 3, 4]), 'test-model', { scope: { tenant: T } });
      await store.insert([zero, neg, pos]);
      const got = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: new Float32Array([1, 1, 1, 1]),
        model: 'test-model',
        limit: 3,
      });
      expect(ids(got)).toEqual([pos.id, zero.id, neg.id]);
      expect(got[1]!.cosine).toBe(0);
      expect(got[2]!.cosine).toBeCloseTo(-1, 5);
      const zeroQuery = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: new Float32Array(4),
        model: 'test-model',
        limit: 3,
      });
      for (const hit of zeroQuery) expect(hit.cosine).toBe(0);
      const wrongDim = await store.denseSearch({
        filter: { scope: { tenant: T } },
        vector: new Float32Array([1, 0, 0]),
        model: 'test-model',
        limit: 3,
      });
      for (const hit of wrongDim) expect(hit.cosine).toBe(0);
    });

    test('denseSearch rejects a NaN query vector with INVALID_VECTOR', async () => {
      const T = tenant();
      await expectCode(
        store.denseSearch({
          filter: { scope: { tenant: T } },
          vector: new Float32Array([1, Number.NaN]),
          model: 'test-model',
          limit: 3,
        }),
        'INVALID_VECTOR',
      );
    });

    test("search extras (rows, the lexical candidates' cosines) equal what get and denseSearch return", async () => {
      const T = tenant();
      const random = seededRandom(47);
      const records = Array.from({ length: 12 }, (_, i) =>
        withVector(randomVector(random, 8), 'test-model', {
          scope: { tenant: T, user: i % 3 === 0 ? 'u1' : 'u2' },
          text: `kestrel ${i % 2 === 0 ? 'heron' : 'plover'} note ${i}`,
          tags: i % 4 === 0 ? ['tagged'] : [],
          metadata: { n: i },
        }),
      );
      const other = withVector(randomVector(random, 4), 'test-model', {
        scope: { tenant: T },
        text: 'kestrel four dims',
      });
      await store.insert([...records, other]);
      const changed = records[5] as MemoryRecord;
      await store.update(T, changed.id, { text: 'kestrel heron changed', updatedAt: '2030-01-01T00:00:00.000Z' });
      const vector = randomVector(random, 8);
      const filter: MemoryFilter = { scope: { tenant: T } };
      const answered = options.answersSearchExtras === true;
      const expectRows = async (
        candidates: Array<{ id: string; memory?: Memory | undefined; updatedAt?: string | undefined }>,
      ) => {
        const rows = await store.get(
          T,
          candidates.map((c) => c.id),
        );
        candidates.forEach((c, i) => {
          if (answered) expect(c.memory, c.id).toBeDefined();
          if (c.memory !== undefined) {
            expect(c.memory).toEqual(rows[i]);
            expect(c.updatedAt).toBe(rows[i]?.updatedAt);
          }
        });
      };

      const plainDense = await store.denseSearch({ filter, vector, model: 'test-model', limit: 6 });
      const dense = await store.denseSearch({ filter, vector, model: 'test-model', limit: 6, withRows: true });
      expect(dense.map((c) => [c.id, c.cosine])).toEqual(plainDense.map((c) => [c.id, c.cosine]));
      await expectRows(dense);

      const space = { model: 'test-model', dim: 8 };
      for (const lexicalFilter of [filter, { scope: { tenant: T, user: 'u2' }, tags: [] }] as MemoryFilter[]) {
        const base = { filter: lexicalFilter, terms: ['kestrel', 'heron'], limit: 20, space };
        const plain = await store.lexicalSearch(base);
        const extra = await store.lexicalSearch({ ...base, scoreWith: vector, withRows: true });
        expect(extra.map((c) => [c.id, c.score])).toEqual(plain.map((c) => [c.id, c.score]));
        expect(extra.length).toBeGreaterThan(0);
        await expectRows(extra);
        const exact = await store.denseSearch({
          filter: { ...lexicalFilter, ids: extra.map((c) => c.id) },
          vector,
          model: 'test-model',
          limit: extra.length,
        });
        const cosineOf = new Map(exact.map((c) => [c.id, c.cosine]));
        for (const c of extra) {
          if (answered) expect(c.cosine, c.id).toBeDefined();
          if (c.cosine !== undefined) expect(c.cosine).toBe(cosineOf.get(c.id));
        }
        const scoredOnly = await store.lexicalSearch({ ...base, scoreWith: vector });
        for (const c of scoredOnly) {
          if (c.cosine !== undefined) {
            expect(c.cosine).toBe(cosineOf.get(c.id));
            expect(c.updatedAt).toBe((await store.get(T, [c.id]))[0]?.updatedAt);
          }
        }
        // `storedCosinesWith`: when given, each candidate's best cosine exactly as storedCosines gives it.
        const vectors = [vector, new Float32Array([0.5, -1, 2, 0, 1, 1, -0.5, 3])];
        const withStored = await store.lexicalSearch({ ...base, storedCosinesWith: vectors });
        expect(withStored.map((c) => [c.id, c.score])).toEqual(plain.map((c) => [c.id, c.score]));
        await expectStoredCosines(store, T, withStored, vectors);
      }
      await expectCode(
        store.lexicalSearch({ filter, terms: ['kestrel'], limit: 5, scoreWith: vector }),
        'INVALID_INPUT',
      );
      await expectCode(
        store.lexicalSearch({ filter, terms: ['kestrel'], limit: 5, space, scoreWith: new Float32Array(4) }),
        'DIMENSION_MISMATCH',
      );
      await expectCode(
        store.lexicalSearch({ filter, terms: ['kestrel'], limit: 5, storedCosinesWith: [vector] }),
        'INVALID_INPUT',
      );
      await expectCode(
        store.lexicalSearch({ filter, terms: ['kestrel'], limit: 5, space, storedCosinesWith: [new Float32Array(4)] }),
        'DIMENSION_MISMATCH',
      );
      await expectCode(
        store.lexicalSearch({
          filter,
          terms: ['kestrel'],
          limit: 5,
          space,
          storedCosinesWith: vector as unknown as Float32Array[],
        }),
        'INVALID_VECTOR',
      );
      await expectCode(
        store.denseSearch({ filter, vector, model: 'test-model', limit: 5, withRows: 'yes' as unknown as boolean }),
        'INVALID_INPUT',
      );
      await expectCode(
        store.lexicalSearch({ filter, terms: ['kestrel'], limit: 5, analyzer: 7 as unknown as string }),
        'INVALID_INPUT',
      );
      if (store.newestIds)
        await expectCode(store.newestIds(filter, 5, { analyzer: 7 as unknown as string }), 'INVALID_INPUT');
      // Any store may keep no documents: an analyzer it does not know only brings none.
      const plain = await store.denseSearch({ filter, vector, model: 'test-model', limit: 5, analyzer: 'no-such-analyzer' });
      expect(plain.every((hit) => hit.document === undefined)).toBe(true);
    });

    // ---------------------------------------------------------------- lexical search

    test('lexicalSearch with a space keeps only rows holding a vector of that model and dimension', async () => {
      const T = tenant();
      const random = seededRandom(31);
      const inSpace = withVector(randomVector(random, 8), 'test-model', { scope: { tenant: T }, text: 'wombat one' });
      const otherModel = withVector(randomVector(random, 8), 'other-model', {
        scope: { tenant: T },
        text: 'wombat two',
      });
      const otherDim = withVector(randomVector(random, 4), 'test-model', {
        scope: { tenant: T, user: 'u4' },
        text: 'wombat three',
      });
      const noVector = makeRecord({ scope: { tenant: T }, text: 'wombat four' });
      await store.insert([inSpace, otherModel, otherDim, noVector]);
      const find = async (space?: { model: string; dim: number }): Promise<string[]> =>
        ids(
          await store.lexicalSearch({ filter: { scope: { tenant: T } }, terms: ['wombat'], limit: 10, space }),
        ).sort();
      expect(await find({ model: 'test-model', dim: 8 })).toEqual([inSpace.id]);
      expect(await find({ model: 'other-model', dim: 8 })).toEqual([otherModel.id]);
      expect(await find({ model: 'test-model', dim: 4 })).toEqual([otherDim.id]);
      expect(await find({ model: 'absent-model', dim: 8 })).toEqual([]);
      expect(await find()).toEqual([inSpace.id, otherModel.id, otherDim.id, noVector.id].sort());
      await expectCode(
        store.lexicalSearch({
          filter: { scope: { tenant: T } },
          terms: ['wombat'],
          limit: 10,
          space: { model: '', dim: 8 },
        }),
        'INVALID_INPUT',
      );
    });

    for (const mode of LEXICAL_MODES) {
      describe(`lexical search over ${mode.name}`, () => {
        test('lexicalSearch finds rows by any term', async () => {
          const T = tenant();
          const a = mode.record({ scope: { tenant: T }, text: 'The zebra crossed the road' });
          const b = mode.record({ scope: { tenant: T }, text: 'A giraffe ate leaves' });
          const c = mode.record({ scope: { tenant: T }, text: 'Nothing relevant here' });
          await store.insert([a, b, c]);
          const got = await lexical(mode, {
            filter: { scope: { tenant: T } },
            terms: ['zebra', 'giraffe'],
            limit: 10,
          });
          expect(ids(got).sort()).toEqual([a.id, b.id].sort());
          for (const hit of got) expect(Number.isFinite(hit.score)).toBe(true);
          expect(ids(await lexical(mode, { filter: { scope: { tenant: T } }, terms: ['ZEBRA'], limit: 10 }))).toEqual([
            a.id,
          ]);
          expect(await lexical(mode, { filter: { scope: { tenant: T } }, terms: ['absent'], limit: 10 })).toEqual([]);
          expect(await lexical(mode, { filter: { scope: { tenant: T } }, terms: [], limit: 10 })).toEqual([]);
        });

        test('lexicalSearch ranks rows matching more terms higher', async () => {
          const T = tenant();
          const both = mode.record({ scope: { tenant: T }, text: 'peanut allergy confirmed by the doctor' });
          const one = mode.record({ scope: { tenant: T }, text: 'bought peanut butter yesterday at the shop' });
          const filler = Array.from({ length: 20 }, (_, i) =>
            mode.record({ scope: { tenant: T }, text: `unrelated filler sentence number ${i}` }),
          );
          await store.insert([one, both, ...filler]);
          const got = await lexical(mode, {
            filter: { scope: { tenant: T } },
            terms: ['peanut', 'allergy'],
            limit: 10,
          });
          expect(ids(got)).toEqual([both.id, one.id]);
          expect(got[0]!.score).toBeGreaterThan(got[1]!.score);
        });

        test('lexicalSearch treats FTS syntax in terms literally', async () => {
          const T = tenant();
          const door = mode.record({ scope: { tenant: T }, text: 'she said hello near the door and left, or not' });
          const doorway = mode.record({ scope: { tenant: T }, text: 'standing in the doorway' });
          const other = mode.record({ scope: { tenant: T }, text: 'completely different words' });
          await store.insert([door, doorway, other]);
          const weird = [
            '"',
            '""',
            '"hello',
            'hello"',
            '*',
            'door*',
            '-',
            '-door',
            ':',
            'title:door',
            'body:door',
            '^door',
            '^',
            '(',
            ')',
            '(left)',
            'NEAR',
            'NEAR(hello door)',
            'AND',
            'OR',
            'NOT',
            'door AND',
            'OR door',
            'NOT door',
            '{body}',
            '+',
            "'",
            '\\',
            '%',
            '_',
            ';--',
            "' OR 1=1 --",
            'door"; DROP TABLE memories; --',
          ];
          for (const term of weird) {
            const got = await lexical(mode, { filter: { scope: { tenant: T } }, terms: [term], limit: 10 });
            expect(Array.isArray(got), term).toBe(true);
            expect(ids(got), term).not.toContain(other.id);
          }
          const find = async (term: string): Promise<string[]> =>
            ids(await lexical(mode, { filter: { scope: { tenant: T } }, terms: [term], limit: 10 }));
          expect(await find('"hello"')).toEqual([door.id]);
          expect(await find('door*')).toEqual([door.id]);
          expect(await find('-door')).toEqual([door.id]);
          expect(await find('^door')).toEqual([door.id]);
          expect(await find('(left)')).toEqual([door.id]);
          expect(await find('NEAR')).toEqual([door.id]);
          expect(await find('AND')).toEqual([door.id]);
          expect(await find('OR')).toEqual([door.id]);
          expect(await find('NOT')).toEqual([door.id]);
          expect(await find('doorway')).toEqual([doorway.id]);
          expect(await store.count({ scope: { tenant: T } })).toBe(3);
        });

        test('lexicalSearch matches accented Latin and Cyrillic terms', async () => {
          const T = tenant();
          const fr = mode.record({ scope: { tenant: T }, text: 'Le café est fermé le dimanche' });
          const de = mode.record({ scope: { tenant: T }, text: 'Die Straße ist schön und grün' });
          const ru = mode.record({ scope: { tenant: T }, text: 'Привет, Москва! Я люблю борщ' });
          await store.insert([fr, de, ru]);
          const find = async (term: string): Promise<string[]> =>
            ids(await lexical(mode, { filter: { scope: { tenant: T } }, terms: [term], limit: 10 }));
          expect(await find('café')).toEqual([fr.id]);
          expect(await find('fermé')).toEqual([fr.id]);
          expect(await find('schön')).toEqual([de.id]);
          expect(await find('Москва')).toEqual([ru.id]);
          expect(await find('москва')).toEqual([ru.id]);
          expect(await find('борщ')).toEqual([ru.id]);
        });

        test('lexicalSearch matches accent-insensitively', async () => {
          const T = tenant();
          const fr = mode.record({ scope: { tenant: T }, text: 'Le café est fermé' });
          const plain = mode.record({ scope: { tenant: T }, text: 'a naive resume' });
          await store.insert([fr, plain]);
          const find = async (term: string): Promise<string[]> =>
            ids(await lexical(mode, { filter: { scope: { tenant: T } }, terms: [term], limit: 10 }));
          expect(await find('cafe')).toEqual([fr.id]);
          expect(await find('FERME')).toEqual([fr.id]);
          expect(await find('naïve')).toEqual([plain.id]);
          expect(await find('résumé')).toEqual([plain.id]);
        });

        test('lexicalSearch matches CJK words', async () => {
          const T = tenant();
          const zh = mode.record({ scope: { tenant: T }, text: '我对花生过敏，喜欢吃辣的东西' });
          const zh2 = mode.record({ scope: { tenant: T }, text: '他买了一辆新车' });
          const ja = mode.record({ scope: { tenant: T }, text: '東京タワーに行きました' });
          const mixed = mode.record({ scope: { tenant: T }, text: 'Rust 所有权 ownership rules' });
          await store.insert([zh, zh2, ja, mixed]);
          const find = async (...terms: string[]): Promise<string[]> =>
            ids(await lexical(mode, { filter: { scope: { tenant: T } }, terms, limit: 10 }));
          expect(await find('花生')).toEqual([zh.id]);
          expect(await find('过敏')).toEqual([zh.id]);
          expect(await find('花生过敏')).toEqual([zh.id]);
          expect(await find('新车')).toEqual([zh2.id]);
          expect(await find('東京')).toEqual([ja.id]);
          expect(await find('タワー')).toEqual([ja.id]);
          expect(await find('所有权')).toEqual([mixed.id]);
          expect((await find('花生', '新车')).sort()).toEqual([zh.id, zh2.id].sort());
          // Characters that appear in a row but not next to each other do not match as a word.
          expect(await find('花过')).toEqual([]);
        });

        test('lexicalSearch matches a single CJK character', async () => {
          const T = tenant();
          const zh = mode.record({ scope: { tenant: T }, text: '我喜欢猫' });
          const other = mode.record({ scope: { tenant: T }, text: '我喜欢狗' });
          await store.insert([zh, other]);
          expect(ids(await lexical(mode, { filter: { scope: { tenant: T } }, terms: ['猫'], limit: 10 }))).toEqual([
            zh.id,
          ]);
        });

        test('lexicalSearch respects the filter and limit', async () => {
          const T = tenant();
          const rows = Array.from({ length: 30 }, (_, i) =>
            mode.record({
              scope: { tenant: T, user: `u${i % 2}`, agent: `a${i % 3}` },
              text: `kangaroo number ${i}`,
              type: i % 5 === 0 ? 'UserMemory' : 'LongTermMemory',
              tags: i % 4 === 0 ? ['four'] : [],
              status: i % 6 === 5 ? 'archived' : 'activated',
            }),
          );
          await store.insert(rows);
          const search = async (filter: object, limit = 100): Promise<string[]> =>
            ids(
              await lexical(mode, { filter: { scope: { tenant: T }, ...filter }, terms: ['kangaroo'], limit }),
            ).sort();
          const expectIds = (keep: (r: MemoryRecord, i: number) => boolean): string[] =>
            ids(rows.filter((r, i) => keep(r, i))).sort();
          expect(await search({})).toEqual(expectIds((r) => r.status === 'activated'));
          expect(await search({ scope: { tenant: T, user: 'u1' } })).toEqual(
            expectIds((r) => r.status === 'activated' && r.scope.user === 'u1'),
          );
          expect(await search({ scope: { tenant: T, agent: 'a2' } })).toEqual(
            expectIds((r) => r.status === 'activated' && r.scope.agent === 'a2'),
          );
          expect(await search({ types: ['UserMemory'] })).toEqual(
            expectIds((r) => r.status === 'activated' && r.type === 'UserMemory'),
          );
          expect(await search({ tags: ['four'] })).toEqual(
            expectIds((r) => r.status === 'activated' && r.tags.includes('four')),
          );
          expect(await search({ statuses: ['archived'] })).toEqual(expectIds((r) => r.status === 'archived'));
          expect(await search({ ids: [rows[0]!.id, rows[1]!.id, rows[5]!.id] })).toEqual(
            [rows[0]!.id, rows[1]!.id].sort(),
          );
          expect(await search({}, 7)).toHaveLength(7);
        });

        test('lexicalSearch forgets deleted rows', async () => {
          const T = tenant();
          const r = mode.record({ scope: { tenant: T }, text: 'ephemeral axolotl' });
          await store.insert([r]);
          await store.delete(T, [r.id]);
          expect(await lexical(mode, { filter: { scope: { tenant: T } }, terms: ['axolotl'], limit: 5 })).toEqual([]);
        });
      });
    }

    // ---------------------------------------------------------------- usage

    test('recordUsage increments the count and sets lastUsedAt', async () => {
      const T = tenant();
      const a = makeRecord({ scope: { tenant: T } });
      const b = makeRecord({ scope: { tenant: T } });
      await store.insert([a, b]);
      await store.recordUsage(T, [a.id], at(100));
      await store.recordUsage(T, [a.id, b.id, 'missing'], at(200));
      const [ga, gb] = await store.get(T, [a.id, b.id]);
      expect(ga?.usage).toEqual({ count: 2, lastUsedAt: at(200) });
      expect(gb?.usage).toEqual({ count: 1, lastUsedAt: at(200) });
      expect(ga?.updatedAt).toBe(a.updatedAt);
      await store.recordUsage(T, [], at(300));
    });

    /** Tenant T with memories a and b (b used once at 5), and another tenant holding a memory with a's id. */
    async function usageFixture(): Promise<{ T: string; other: string; a: MemoryRecord; b: MemoryRecord }> {
      const T = tenant();
      const other = tenant('other');
      const a = makeRecord({ scope: { tenant: T } });
      const b = makeRecord({ scope: { tenant: T } });
      await store.insert([a, b]);
      await store.insert([makeRecord({ id: a.id, scope: { tenant: other } })]);
      await store.recordUsage(T, [b.id], at(5));
      return { T, other, a, b };
    }

    test('addUsage (optional) adds counts, merges repeated ids, keeps the time on null, within the tenant', async () => {
      if (store.addUsage === undefined) return;
      const { T, other, a, b } = await usageFixture();
      await store.addUsage(T, [
        { id: a.id, count: 1, lastUsedAt: at(30) },
        { id: b.id, count: 2, lastUsedAt: null },
        { id: a.id, count: 2, lastUsedAt: at(10) },
        { id: 'missing', count: 3, lastUsedAt: at(1) },
      ]);
      const [ga, gb] = await store.get(T, [a.id, b.id]);
      expect(ga?.usage).toEqual({ count: 3, lastUsedAt: at(30) });
      expect(gb?.usage).toEqual({ count: 3, lastUsedAt: at(5) });
      expect(ga?.updatedAt).toBe(a.updatedAt);
      expect((await store.get(other, [a.id]))[0]?.usage).toEqual({ count: 0, lastUsedAt: null });
      await store.addUsage(T, []);
      await expectCode(store.addUsage(T, [{ id: a.id, count: -1, lastUsedAt: null }]), 'INVALID_INPUT');
      await expectCode(store.addUsage(T, [{ id: a.id, count: 1, lastUsedAt: 'yesterday' }]), 'INVALID_INPUT');
      expect((await store.get(T, [a.id]))[0]?.usage).toEqual({ count: 3, lastUsedAt: at(30) });
    });

    test('setUsage (optional) sets counts and last-used times exactly, within the tenant', async () => {
      if (store.setUsage === undefined) return;
      const { T, other, a, b } = await usageFixture();
      await store.setUsage(T, [
        { id: a.id, count: 7, lastUsedAt: at(70) },
        { id: b.id, count: 0, lastUsedAt: null },
        { id: 'missing', count: 3, lastUsedAt: at(1) },
      ]);
      const [ga, gb] = await store.get(T, [a.id, b.id]);
      expect(ga?.usage).toEqual({ count: 7, lastUsedAt: at(70) });
      expect(gb?.usage).toEqual({ count: 0, lastUsedAt: null });
      expect((await store.get(other, [a.id]))[0]?.usage).toEqual({ count: 0, lastUsedAt: null });
    });

    // ---------------------------------------------------------------- tenant isolation

    async function twoTenants(): Promise<{ A: string; B: string; a: MemoryRecord; vector: Float32Array }> {
      const A = tenant('A');
      const B = tenant('B');
      const vector = randomVector(seededRandom(21), 8);
      const a = withVector(vector, 'test-model', {
        scope: { tenant: A, user: 'same-user' },
        text: 'secret narwhal of tenant A',
        tags: ['t'],
        key: 'k',
      });
      await store.insert([a]);
      await store.insert([
        withVector(randomVector(seededRandom(22), 8), 'test-model', {
          scope: { tenant: B, user: 'same-user' },
          text: 'tenant B row',
        }),
      ]);
      return { A, B, a, vector };
    }

    test('tenant isolation: get and getVectors', async () => {
      const { B, a } = await twoTenants();
      expect(await store.get(B, [a.id])).toEqual([]);
      expect((await store.getVectors(B, [a.id])).size).toBe(0);
    });

    test('tenant isolation: update and delete', async () => {
      const { A, B, a } = await twoTenants();
      expect(await store.update(B, a.id, { text: 'hijacked', updatedAt: at(9) })).toBeNull();
      expect(await store.update(B, a.id, { updatedAt: at(9) }, null)).toBeNull();
      expect(await store.delete(B, [a.id])).toBe(0);
      const [still] = await store.get(A, [a.id]);
      expect(still).toEqual(expected(a));
    });

    test('tenant isolation: list, count and stats', async () => {
      const { B, a } = await twoTenants();
      const all = ['activated', 'archived', 'deleted'] as Array<'activated' | 'archived' | 'deleted'>;
      const listed = await store.list({ scope: { tenant: B }, statuses: all });
      expect(ids(listed.items)).not.toContain(a.id);
      expect(listed.items).toHaveLength(1);
      expect((await store.list({ scope: { tenant: B }, ids: [a.id] })).items).toEqual([]);
      expect((await store.list({ scope: { tenant: B, user: 'same-user' }, key: 'k', tags: ['t'] })).items).toEqual([]);
      expect(await store.count({ scope: { tenant: B }, ids: [a.id] })).toBe(0);
      expect(await store.count({ scope: { tenant: B } })).toBe(1);
      expect((await store.stats({ scope: { tenant: B } })).total).toBe(1);
    });

    test('tenant isolation: denseSearch and lexicalSearch', async () => {
      const { A, B, a, vector } = await twoTenants();
      const dense = await store.denseSearch({
        filter: { scope: { tenant: B } },
        vector,
        model: 'test-model',
        limit: 10,
      });
      expect(ids(dense)).not.toContain(a.id);
      expect(dense).toHaveLength(1);
      const denseUser = await store.denseSearch({
        filter: { scope: { tenant: B, user: 'same-user' }, ids: [a.id] },
        vector,
        model: 'test-model',
        limit: 10,
      });
      expect(denseUser).toEqual([]);
      expect(await store.lexicalSearch({ filter: { scope: { tenant: B } }, terms: ['narwhal'], limit: 10 })).toEqual(
        [],
      );
      expect(
        ids(await store.lexicalSearch({ filter: { scope: { tenant: A } }, terms: ['narwhal'], limit: 10 })),
      ).toEqual([a.id]);
    });

    test('tenant isolation: recordUsage', async () => {
      const { A, B, a } = await twoTenants();
      await store.recordUsage(B, [a.id], at(50));
      expect((await store.get(A, [a.id]))[0]?.usage).toEqual({ count: 0, lastUsedAt: null });
    });

    // ---------------------------------------------------------------- one answer on every backend
    // Each case pins a behaviour two backends once answered differently.

    test('the largest limit of list, denseSearch and lexicalSearch is MAX_STORE_LIMIT', async () => {
      const T = tenant();
      const rows = [0, 1, 2].map((i) =>
        withVector(randomVector(seededRandom(20 + i), 4), 'test-model', {
          scope: { tenant: T },
          text: 'limit wombat',
          createdAt: at(i),
        }),
      );
      await store.insert(rows);
      const f = { scope: { tenant: T } };
      const dense = { filter: f, vector: rows[0]!.vector!, model: 'test-model' };
      const lexicalQuery = { filter: f, terms: ['wombat'] };
      expect(ids((await store.list(f, { limit: MAX_STORE_LIMIT })).items)).toEqual(ids(rows));
      expect(await store.denseSearch({ ...dense, limit: MAX_STORE_LIMIT })).toHaveLength(3);
      expect(await store.lexicalSearch({ ...lexicalQuery, limit: MAX_STORE_LIMIT })).toHaveLength(3);
      const over = MAX_STORE_LIMIT + 1;
      const error = await expectCode(store.list(f, { limit: over }), 'INVALID_LIMIT');
      expect(error.details).toMatchObject({ limit: over, max: MAX_STORE_LIMIT });
      await expectCode(store.denseSearch({ ...dense, limit: over }), 'INVALID_LIMIT');
      await expectCode(store.lexicalSearch({ ...lexicalQuery, limit: over }), 'INVALID_LIMIT');
    });

    test('update rejects an empty or non-string id, and a patch without updatedAt, with INVALID_INPUT', async () => {
      const T = tenant();
      const r = makeRecord({ scope: { tenant: T }, text: 'unchanged' });
      await store.insert([r]);
      await expectCode(store.update(T, '', { text: 'x', updatedAt: at(2) }), 'INVALID_INPUT');
      await expectCode(store.update(T, 42 as unknown as string, { text: 'x', updatedAt: at(2) }), 'INVALID_INPUT');
      await expectCode(store.update(T, r.id, null as unknown as StorePatch), 'INVALID_INPUT');
      await expectCode(store.update(T, r.id, { text: 'x' } as StorePatch), 'INVALID_INPUT');
      expect((await store.get(T, [r.id]))[0]).toEqual(expected(r));
    });

    test('stats lists embedding models by most rows first, ties by model then dim', async () => {
      const T = tenant();
      const scope = { tenant: T };
      const ones = (dim: number): Float32Array => new Float32Array(dim).fill(1);
      await store.insert([
        ...[0, 1, 2].map(() => withVector(ones(4), 'zeta', { scope })),
        withVector(ones(8), 'alpha', { scope }),
        withVector(ones(4), 'beta', { scope, status: 'archived' }),
        withVector(ones(4), 'alpha', { scope }),
        makeRecord({ scope }),
      ]);
      const all = await store.stats({ scope, statuses: [...MEMORY_STATUSES] });
      expect(all.models).toEqual([
        { model: 'zeta', dim: 4, count: 3 },
        { model: 'alpha', dim: 4, count: 1 },
        { model: 'alpha', dim: 8, count: 1 },
        { model: 'beta', dim: 4, count: 1 },
      ]);
      // Counted among the rows the filter matches: the archived row drops out by default.
      expect((await store.stats({ scope })).models.map((m) => `${m.model}/${m.dim}`)).toEqual([
        'zeta/4',
        'alpha/4',
        'alpha/8',
      ]);
    });

    test('every read that names no statuses sees DEFAULT_STATUSES only', async () => {
      const T = tenant();
      const scope = { tenant: T };
      const rows = MEMORY_STATUSES.map((status, i) =>
        withVector(randomVector(seededRandom(40 + i), 4), 'test-model', { scope, status, text: `status okapi ${i}` }),
      );
      await store.insert(rows);
      const live = rows.filter((r) => DEFAULT_STATUSES.includes(r.status)).map((r) => r.id);
      expect(live.length).toBeGreaterThan(0);
      expect(live.length).toBeLessThan(rows.length);
      const space = { model: 'test-model', dim: 4 };
      for (const filter of [{ scope }, { scope, statuses: [...DEFAULT_STATUSES] }]) {
        expect(ids((await store.list(filter)).items).sort()).toEqual([...live].sort());
        expect(await store.count(filter)).toBe(live.length);
        expect((await store.stats(filter)).total).toBe(live.length);
        const dense = await store.denseSearch({ filter, vector: rows[0]!.vector!, model: 'test-model', limit: 10 });
        expect(ids(dense).sort()).toEqual([...live].sort());
        expect(ids(await store.lexicalSearch({ filter, terms: ['okapi'], limit: 10 })).sort()).toEqual(
          [...live].sort(),
        );
        const inSpace = await store.lexicalSearch({ filter, terms: ['okapi'], limit: 10, space });
        expect(ids(inSpace).sort()).toEqual([...live].sort());
      }
    });

    test('malformed search and usage calls get the same codes', async () => {
      const f = { scope: { tenant: tenant() } };
      const vector = new Float32Array([1, 0]);
      await expectCode(store.denseSearch(null as unknown as DenseQuery), 'INVALID_INPUT');
      await expectCode(store.denseSearch({ filter: f, vector, model: '', limit: 1 }), 'INVALID_INPUT');
      await expectCode(
        store.denseSearch({ filter: f, vector: [1, 0] as unknown as Float32Array, model: 'm', limit: 1 }),
        'INVALID_VECTOR',
      );
      await expectCode(
        store.denseSearch({ filter: f, vector: new Float32Array(0), model: 'm', limit: 1 }),
        'INVALID_VECTOR',
      );
      await expectCode(
        store.denseSearch({ filter: { scope: { tenant: '' } }, vector, model: 'm', limit: 1 }),
        'INVALID_SCOPE',
      );
      await expectCode(store.lexicalSearch(null as unknown as LexicalQuery), 'INVALID_INPUT');
      await expectCode(
        store.lexicalSearch({ filter: f, terms: 'word' as unknown as string[], limit: 1 }),
        'INVALID_INPUT',
      );
      await expectCode(
        store.lexicalSearch({ filter: f, terms: ['word'], limit: 1, space: { model: '', dim: 4 } }),
        'INVALID_INPUT',
      );
      await expectCode(store.recordUsage(f.scope.tenant, ['x'], 'yesterday'), 'INVALID_INPUT');
      await expectCode(store.insert({} as unknown as MemoryRecord[]), 'INVALID_INPUT');
    });

    test('list cursors, orders and directions are checked with INVALID_INPUT', async () => {
      const T = tenant();
      await store.insert(
        [0, 1, 2].map((i) => makeRecord({ scope: { tenant: T }, createdAt: at(i), updatedAt: at(i) })),
      );
      const f = { scope: { tenant: T } };
      const cursor = (await store.list(f, { limit: 1 })).nextCursor;
      expect(cursor).not.toBeNull();
      await expectCode(store.list(f, { limit: 1, cursor: cursor!, order: 'updatedAt' }), 'INVALID_INPUT');
      await expectCode(store.list(f, { limit: 1, cursor: cursor!, direction: 'desc' }), 'INVALID_INPUT');
      await expectCode(store.list(f, { cursor: 42 as unknown as string }), 'INVALID_INPUT');
      await expectCode(store.list(f, { order: 'text' as unknown as 'createdAt' }), 'INVALID_INPUT');
      await expectCode(store.list(f, { direction: 'up' as unknown as 'asc' }), 'INVALID_INPUT');
      expect((await store.list(f, { limit: 5, cursor: cursor! })).items).toHaveLength(2);
    });

    test('ties break by id in byte order: list in every order, both directions and across pages, and denseSearch', async () => {
      const T = tenant();
      const mixed = ['b', 'B', 'a1', 'A', 'a', '_x', '0'];
      const v = new Float32Array([0.6, 0.8]);
      await store.insert(
        mixed.map((id) =>
          withVector(v, 'test-model', { id, scope: { tenant: T }, createdAt: at(7), updatedAt: at(7), statedAt: null }),
        ),
      );
      // ASCII ids: JavaScript's order is byte order (SQLite BINARY, PostgreSQL "C").
      const byteOrder = [...mixed].sort();
      const f = { scope: { tenant: T } };
      for (const order of LIST_ORDERS) {
        expect(ids((await store.list(f, { order })).items)).toEqual(byteOrder);
        expect(ids((await store.list(f, { order, direction: 'desc' })).items)).toEqual([...byteOrder].reverse());
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.list(f, { order, limit: 2, cursor });
          seen.push(...ids(page.items));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined && seen.length < 20);
        expect(seen).toEqual(byteOrder);
      }
      const hits = await store.denseSearch({ filter: f, vector: v, model: 'test-model', limit: 10 });
      expect(ids(hits)).toEqual(byteOrder);
      expect(new Set(hits.map((h) => h.cosine)).size).toBe(1);
    });

    test(
      'a corrupt stored vector: getVectors names it with CORRUPT_VECTOR, denseSearch skips it, list still returns it',
      async () => {
        const T = tenant();
        const rows = Array.from({ length: 6 }, (_, i) =>
          withVector(randomVector(seededRandom(60 + i), 8), 'test-model', { scope: { tenant: T } }),
        );
        await store.insert(rows);
        const [bad, good] = rows as [MemoryRecord, MemoryRecord];
        await options.corruptVector!(store, T, bad.id);
        const error = await expectCode(store.getVectors(T, [bad.id, good.id]), 'CORRUPT_VECTOR');
        expect(error.details).toMatchObject({ ids: [bad.id] });
        expect([...(await store.getVectors(T, [good.id])).keys()]).toEqual([good.id]);
        const hits = await store.denseSearch({
          filter: { scope: { tenant: T } },
          vector: bad.vector!,
          model: 'test-model',
          limit: 10,
        });
        expect(ids(hits).sort()).toEqual(ids(rows.slice(1)).sort());
        expect(ids((await store.list({ scope: { tenant: T }, ids: [bad.id] })).items)).toEqual([bad.id]);
      },
      options.corruptVector === undefined ? 'the backend gives the suite no raw write access' : undefined,
    );

    test('a closed store answers STORE_CLOSED before it checks arguments', async () => {
      await store.close();
      await expectCode(store.update('', '', null as unknown as StorePatch), 'STORE_CLOSED');
      await expectCode(store.list({ scope: { tenant: '' } }, { limit: 0 }), 'STORE_CLOSED');
      await expectCode(
        store.denseSearch({ filter: { scope: { tenant: '' } }, vector: new Float32Array(0), model: '', limit: 0 }),
        'STORE_CLOSED',
      );
      await expectCode(store.insert(null as unknown as MemoryRecord[]), 'STORE_CLOSED');
      await expectCode(store.get('', ['x']), 'STORE_CLOSED');
      await expectCode(store.recordUsage('', ['x'], 'never'), 'STORE_CLOSED');
    });

    // ---------------------------------------------------------------- lifecycle

    test('a closed store rejects every call with STORE_CLOSED', async () => {
      const T = tenant();
      await store.insert([makeRecord({ scope: { tenant: T } })]);
      await store.close();
      await store.close();
      const f = { scope: { tenant: T } };
      await expectCode(store.insert([makeRecord({ scope: { tenant: T } })]), 'STORE_CLOSED');
      await expectCode(store.get(T, ['x']), 'STORE_CLOSED');
      await expectCode(store.getVectors(T, ['x']), 'STORE_CLOSED');
      await expectCode(store.update(T, 'x', { updatedAt: at(1) }), 'STORE_CLOSED');
      await expectCode(store.delete(T, ['x']), 'STORE_CLOSED');
      await expectCode(store.list(f), 'STORE_CLOSED');
      await expectCode(store.count(f), 'STORE_CLOSED');
      await expectCode(store.stats(f), 'STORE_CLOSED');
      await expectCode(
        store.denseSearch({ filter: f, vector: new Float32Array([1]), model: 'm', limit: 1 }),
        'STORE_CLOSED',
      );
      await expectCode(store.lexicalSearch({ filter: f, terms: ['x'], limit: 1 }), 'STORE_CLOSED');
      await expectCode(store.recordUsage(T, ['x'], at(1)), 'STORE_CLOSED');
      await expectCode(store.migrate(), 'STORE_CLOSED');
    });

    // ---------------------------------------------------------------- formation storage

    const childSpec = options.childSpec;
    const cases: CaseContext = {
      test,
      store: () => store,
      tenant,
      childSpec: childSpec === undefined ? undefined : () => childSpec(store),
    };
    validityCases(cases);
    historyCases(cases);
    episodeCases(cases);
    queueCases(cases);
    windowCases(cases);
    transferCases(cases);
    restoreCheckCases(cases);
    processCases(cases);
  });
}
