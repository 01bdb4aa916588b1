import { expect } from 'vitest';
import type { MemoryFilter } from '../../../src/model/memory-filter.js';
import { expectCode } from '../../support/expect-code.js';
import { at, makeRecord, randomVector, seededRandom, withVector } from '../fixtures/records.js';
import type { CaseContext } from './case-context.js';

const ids = (items: Array<{ id: string }>): string[] => items.map((i) => i.id).sort();

/** World-time validity: how rows read, and the `validAt` filter on every read path. */
export function validityCases({ test, store: current, tenant }: CaseContext): void {
  test('a record without validity reads valid from statedAt ?? createdAt, open, version 1', async () => {
    const store = current();
    const T = tenant();
    const a = makeRecord({ scope: { tenant: T }, statedAt: '2024-03-01T10:00:00+02:00', createdAt: at(5) });
    const b = makeRecord({ scope: { tenant: T }, statedAt: null, createdAt: at(6) });
    await store.insert([a, b]);
    const [ga, gb] = await store.get(T, [a.id, b.id]);
    expect(ga).toMatchObject({ validFrom: '2024-03-01T08:00:00.000Z', validTo: null, supersededBy: null, version: 1 });
    expect(gb).toMatchObject({ validFrom: at(6), validTo: null, supersededBy: null, version: 1 });
  });

  test('a record with validity round-trips it', async () => {
    const store = current();
    const T = tenant();
    const r = makeRecord({
      scope: { tenant: T },
      validFrom: '2025-01-01T00:00:00.000Z',
      validTo: '2025-06-01T00:00:00.000Z',
      supersededBy: 'next',
      version: 3,
    });
    await store.insert([r]);
    expect((await store.get(T, [r.id]))[0]).toMatchObject({
      validFrom: '2025-01-01T00:00:00.000Z',
      validTo: '2025-06-01T00:00:00.000Z',
      supersededBy: 'next',
      version: 3,
    });
  });

  test('insert refuses a validity that ends before it starts, or a bad version', async () => {
    const store = current();
    const T = tenant();
    const base = { scope: { tenant: T }, validFrom: '2025-06-01T00:00:00.000Z' };
    await expectCode(store.insert([makeRecord({ ...base, validTo: '2025-01-01T00:00:00.000Z' })]), 'INVALID_INPUT');
    await expectCode(store.insert([makeRecord({ ...base, version: 0 })]), 'INVALID_INPUT');
    await expectCode(store.insert([makeRecord({ ...base, validFrom: 'yesterday' })]), 'INVALID_INPUT');
    expect(await store.count({ scope: { tenant: T } })).toBe(0);
  });

  test('validAt keeps what was valid at that instant in list, count and stats (start inclusive, end exclusive)', async () => {
    const store = current();
    const T = tenant();
    const lisbon = makeRecord({
      scope: { tenant: T },
      validFrom: '2024-01-01T00:00:00.000Z',
      validTo: '2026-02-01T00:00:00.000Z',
    });
    const berlin = makeRecord({ scope: { tenant: T }, validFrom: '2026-02-01T00:00:00.000Z' });
    const plan = makeRecord({ scope: { tenant: T }, validFrom: '2027-01-01T00:00:00.000Z', type: 'UserMemory' });
    await store.insert([lisbon, berlin, plan]);
    const f = (validAt?: string): MemoryFilter => ({ scope: { tenant: T }, validAt });
    expect(ids((await store.list(f())).items)).toEqual(ids([lisbon, berlin, plan]));
    expect(ids((await store.list(f('2025-06-01T00:00:00.000Z'))).items)).toEqual([lisbon.id]);
    expect(ids((await store.list(f('2026-02-01T00:00:00.000Z'))).items)).toEqual([berlin.id]);
    expect(ids((await store.list(f('2026-01-31T23:59:59.999Z'))).items)).toEqual([lisbon.id]);
    expect(ids((await store.list(f('2027-01-01T00:00:00.000Z'))).items)).toEqual(ids([berlin, plan]));
    expect(await store.count(f('2023-01-01T00:00:00.000Z'))).toBe(0);
    expect(await store.count(f('2027-06-01T00:00:00+02:00'))).toBe(2);
    const stats = await store.stats(f('2027-06-01T00:00:00.000Z'));
    expect(stats.total).toBe(2);
    expect(stats.byType).toEqual({ LongTermMemory: 1, UserMemory: 1 });
  });

  test('validAt filters dense and lexical search, with and without an embedding space', async () => {
    const store = current();
    const T = tenant();
    const random = seededRandom(31);
    const make = (text: string, validFrom: string, validTo: string | null) =>
      withVector(randomVector(random, 8), 'test-model', { scope: { tenant: T }, text, validFrom, validTo });
    const old = make('lives in lisbon city', '2024-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z');
    const now = make('lives in berlin city', '2026-02-01T00:00:00.000Z', null);
    await store.insert([old, now]);
    const query = old.vector as Float32Array;
    for (const [instant, expected] of [
      ['2025-01-01T00:00:00.000Z', [old.id]],
      ['2026-03-01T00:00:00.000Z', [now.id]],
      [undefined, ids([old, now])],
    ] as const) {
      const filter: MemoryFilter = { scope: { tenant: T }, validAt: instant };
      const dense = await store.denseSearch({ filter, vector: query, model: 'test-model', limit: 10 });
      expect(ids(dense), `dense at ${instant}`).toEqual(expected);
      const lexical = await store.lexicalSearch({ filter, terms: ['lives', 'city'], limit: 10 });
      expect(ids(lexical), `lexical at ${instant}`).toEqual(expected);
      const spaced = await store.lexicalSearch({
        filter,
        terms: ['lives', 'city'],
        limit: 10,
        space: { model: 'test-model', dim: 8 },
      });
      expect(ids(spaced), `lexical in the space at ${instant}`).toEqual(expected);
    }
  });

  test('validAt that is not a timestamp is INVALID_INPUT on every read', async () => {
    const store = current();
    const filter = { scope: { tenant: tenant() }, validAt: 'soon' };
    await expectCode(store.list(filter), 'INVALID_INPUT');
    await expectCode(store.count(filter), 'INVALID_INPUT');
    await expectCode(store.stats(filter), 'INVALID_INPUT');
    await expectCode(
      store.denseSearch({ filter, vector: new Float32Array([1, 0]), model: 'm', limit: 1 }),
      'INVALID_INPUT',
    );
    await expectCode(store.lexicalSearch({ filter, terms: ['x'], limit: 1 }), 'INVALID_INPUT');
  });

  test('an update of content or status adds 1 to the version; usage and a vector alone do not', async () => {
    const store = current();
    const T = tenant();
    const r = withVector(randomVector(seededRandom(3), 4), 'test-model', { scope: { tenant: T } });
    await store.insert([r]);
    expect((await store.update(T, r.id, { text: 'changed', updatedAt: at(100) }))?.version).toBe(2);
    expect((await store.update(T, r.id, { status: 'archived', updatedAt: at(101) }))?.version).toBe(3);
    await store.recordUsage(T, [r.id], at(102));
    const vector = { vector: randomVector(seededRandom(4), 4), embedding: { model: 'test-model', dim: 4 } };
    expect((await store.update(T, r.id, { updatedAt: at(103) }, vector))?.version).toBe(3);
    expect((await store.update(T, r.id, { text: 'changed', updatedAt: at(104) }))?.version).toBe(3);
  });

  test('a statedAt change moves a validity read from it, never one of its own', async () => {
    const store = current();
    const T = tenant();
    const derived = makeRecord({ scope: { tenant: T }, statedAt: '2024-01-01T00:00:00.000Z' });
    const own = makeRecord({
      scope: { tenant: T },
      statedAt: '2024-01-01T00:00:00.000Z',
      validFrom: '2023-05-01T00:00:00.000Z',
    });
    await store.insert([derived, own]);
    const patch = { statedAt: '2024-09-09T00:00:00.000Z', updatedAt: at(200) };
    expect((await store.update(T, derived.id, patch))?.validFrom).toBe('2024-09-09T00:00:00.000Z');
    expect((await store.update(T, own.id, patch))?.validFrom).toBe('2023-05-01T00:00:00.000Z');
    const cleared = await store.update(T, derived.id, { statedAt: null, updatedAt: at(201) });
    expect(cleared?.validFrom).toBe(derived.createdAt);
    expect(await store.count({ scope: { tenant: T }, validAt: '2024-03-01T00:00:00.000Z' })).toBe(1);
  });
}
