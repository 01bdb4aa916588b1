import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryType } from '../../src/model/memory-type.js';
import { MEMORY_TYPES } from '../../src/model/memory-type.js';
import type { MemoryStore, SearchGroup } from '../../src/store/memory-store.js';
import { createSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite/sqlite-store.js';
import {
  MODEL,
  centres,
  picker,
  randomRecords,
  randomText,
  randomVector,
  seeded,
} from '../search/support/random-corpus.js';

const stores: SqliteStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function filled(options: Omit<SqliteStoreOptions, 'path'>, seed: number, n: number, dim: number) {
  const rand = seeded(seed);
  const topics = centres(rand, dim);
  const store = createSqliteStore({ path: ':memory:', ...options });
  stores.push(store);
  // Every tenth text holds a phrase (rarer than the common-word cut), so phrase terms match more rows than the bounded path reads.
  // Some rows start being true later, some stopped being true: a validAt filter drops them.
  const records = randomRecords(rand, n, dim, topics)
    .map((r, i) => (i % 10 === 0 ? { ...r, text: `ice cream ${r.text}` } : r))
    .map((r, i) =>
      i % 7 === 1
        ? { ...r, validFrom: '2030-01-01T00:00:00.000Z' }
        : i % 7 === 2
          ? { ...r, validFrom: '2020-01-01T00:00:00.000Z', validTo: '2020-06-01T00:00:00.000Z' }
          : r,
    );
  await store.insert(records);
  return { store, rand, topics };
}

/** Groups as the multi-path searcher asks for them: the paths' type sets, plus overlapping and empty ones. */
function randomGroups(rand: () => number): SearchGroup[] {
  const { int, some } = picker(rand);
  const groups: SearchGroup[] = [
    { types: ['LongTermMemory', 'OuterMemory', 'RawFileMemory'], limit: 1 + int(60) },
    { types: ['UserMemory'], limit: 1 + int(60) },
    { types: ['ToolSchemaMemory', 'ToolTrajectoryMemory'], limit: 1 + int(30) },
    { types: ['LongTermMemory', 'UserMemory', 'RawFileMemory'], limit: 1 + int(30) },
    { types: some<MemoryType>(MEMORY_TYPES, 0.4), limit: 1 + int(20) },
  ];
  return groups.filter(() => rand() < 0.8);
}

function perGroupDense(store: MemoryStore, query: Parameters<NonNullable<MemoryStore['denseSearchGroups']>>[0]) {
  const { groups, filter, ...rest } = query;
  return Promise.all(
    groups.map((g) => store.denseSearch({ ...rest, filter: { ...filter, types: g.types }, limit: g.limit })),
  );
}

function perGroupLexical(store: MemoryStore, query: Parameters<NonNullable<MemoryStore['lexicalSearchGroups']>>[0]) {
  const { groups, filter, ...rest } = query;
  return Promise.all(
    groups.map((g) => store.lexicalSearch({ ...rest, filter: { ...filter, types: g.types }, limit: g.limit })),
  );
}

describe('SQLite grouped search answers each group as its own search would', () => {
  it.each<[string, Omit<SqliteStoreOptions, 'path'>]>([
    ['vector cache', {}],
    ['int8 pre-selection', { vectorQuantizeAbove: 64 }],
    ['no vector cache', { vectorCache: false }],
    ['bounded lexical path', { lexicalRankAllBelow: 20, lexicalScanCap: 15 }],
  ])('dense and lexical, on random corpora (%s)', async (_name, options) => {
    const { store, rand, topics } = await filled(options, 11, 600, 16);
    const { pick, chance } = picker(rand);
    let rows = 0;
    for (let q = 0; q < 40; q++) {
      const scope = {
        tenant: 't',
        ...(chance(0.8) ? { user: 'u1' } : {}),
        ...(chance(0.2) ? { collection: pick(['ca', 'cb']) } : {}),
      };
      const filter = {
        scope,
        ...(chance(0.2) ? { statuses: ['activated' as const, 'archived' as const] } : {}),
        ...(chance(0.3)
          ? { validAt: pick(['2020-03-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2031-01-01T00:00:00.000Z']) }
          : {}),
      };
      const groups = randomGroups(rand);
      const vector = randomVector(rand, 16, topics);
      const dense = await store.denseSearchGroups({ filter, vector, model: MODEL, groups });
      expect(dense).toEqual(await perGroupDense(store, { filter, vector, model: MODEL, groups }));
      // Phrases (several tokens) are read from FTS5 rather than the in-memory index.
      const terms = [
        ...randomText(rand, 1, 4).split(' '),
        ...(chance(0.4) ? [pick(['ice cream', 'cream ice', 'blue box'])] : []),
      ];
      const space = chance(0.8) ? { model: MODEL, dim: 16 } : undefined;
      const lexical = await store.lexicalSearchGroups({ filter, terms, groups, space });
      expect(lexical).toEqual(await perGroupLexical(store, { filter, terms, groups, space }));
      rows += dense.flat().length + lexical.flat().length;
    }
    expect(rows).toBeGreaterThan(1000);
  });

  it('rejects a bad group with the codes of the single search', async () => {
    const { store } = await filled({}, 3, 20, 8);
    const vector = new Float32Array(8).fill(1);
    await expect(
      store.denseSearchGroups({
        filter: { scope: { tenant: 't' } },
        vector,
        model: MODEL,
        groups: [{ types: ['UserMemory'], limit: 0 }],
      }),
    ).rejects.toMatchObject({ code: 'INVALID_LIMIT' });
    await expect(
      store.lexicalSearchGroups({
        filter: { scope: { tenant: 't' } },
        terms: ['x'],
        groups: [{ types: [5 as unknown as MemoryType], limit: 3 }],
      }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(
      await store.denseSearchGroups({
        filter: { scope: { tenant: 't' } },
        vector: new Float32Array(8),
        model: MODEL,
        groups: [{ types: ['UserMemory'], limit: 3 }],
      }),
    ).toEqual([[]]);
  });
});
