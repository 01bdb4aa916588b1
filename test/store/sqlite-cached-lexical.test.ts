import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/model/json.js';
import { speakerNames } from '../../src/model/speaker-names.js';
import type { LexicalCandidate, LexicalQuery } from '../../src/store/memory-store.js';
import { unicode61Tokens } from '../../src/store/sqlite/fts-text.js';
import type { MemoryType } from '../../src/model/memory-type.js';
import { LexicalIndex, termKey } from '../../src/store/sqlite/lexical-index.js';
import type { SlotFilter, SlotMeta } from '../../src/store/sqlite/slot-meta.js';
import { createSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite/index.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';
import { unitVector } from '../../src/vector/unit-cosine.js';
import { makeRecord, randomVector, seededRandom, slotMeta, withVector } from './fixtures/records.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'store-child.ts');
const SPACE = { model: 'test-model', dim: 4 };
const WORDS = ['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape', 'honey', 'kiwi', 'lemon', 'mango'];

function runChild(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

/** Random sentences of 2–12 words with repeats, so term frequency and length both matter. */
function corpus(seed: number, n: number, prefix: string, tenant: string): ReturnType<typeof withVector>[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const length = 2 + Math.floor(random() * 11);
    const words = Array.from({ length }, () => WORDS[Math.floor(random() * random() * WORDS.length)] as string);
    return withVector(randomVector(random, 4), 'test-model', {
      id: `${prefix}${i}`,
      scope: { tenant },
      text: words.join(' '),
    });
  });
}

function scoresById(hits: LexicalCandidate[]): Map<string, number> {
  return new Map(hits.map((h) => [h.id, h.score]));
}

describe('SQLite lexical channel from the vector cache', () => {
  let dir: string;
  const stores: SqliteStore[] = [];
  const open = (options: Partial<SqliteStoreOptions> = {}, file = 'engram.db'): SqliteStore => {
    const store = createSqliteStore({ path: join(dir, file), synchronous: 'NORMAL', ...options });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-cached-lexical-'));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("scores exactly like FTS5's bm25() when the scope is the whole index", async () => {
    const store = open();
    await store.insert(corpus(1, 400, 'm', 't'));
    const queries = [['apple'], ['kiwi', 'lemon'], ['mango', 'apple', 'fig'], ['honey'], ['date', 'date']];
    for (const terms of queries) {
      const base: LexicalQuery = { filter: { scope: { tenant: 't' } }, terms, limit: 1000 };
      const fts = await store.lexicalSearch(base);
      const cached = await store.lexicalSearch({ ...base, space: SPACE });
      expect(fts.length, terms.join(' ')).toBeGreaterThan(0);
      const want = scoresById(fts);
      const got = scoresById(cached);
      expect([...got.keys()].sort(), terms.join(' ')).toEqual([...want.keys()].sort());
      for (const [id, score] of want) expect(got.get(id), `${terms.join(' ')} ${id}`).toBeCloseTo(score, 9);
      // Best first.
      cached.forEach((h, i) => i > 0 && expect(h.score).toBeLessThanOrEqual((cached[i - 1] as LexicalCandidate).score));
    }
  });

  it('gives every cached candidate its cosines exactly as the dense search and storedCosines score it, single and grouped', async () => {
    const store = open();
    // Vectors long enough for summation orders to differ in the last bits; every other one of
    // unit length, as embedders give them (storedCosines scores those where the cache keeps them).
    const random = seededRandom(5);
    const rows = corpus(5, 300, 'm', 't').map((r, i) => {
      const raw = randomVector(random, 96);
      return withVector(i % 2 === 0 ? (unitVector(raw) as Float32Array) : raw, 'test-model', {
        id: r.id,
        scope: r.scope,
        text: r.text,
        type: (i % 3 === 0 ? 'UserMemory' : 'LongTermMemory') as MemoryType,
      });
    });
    await store.insert(rows);
    const vector = randomVector(seededRandom(9), 96);
    const vectors = [vector, randomVector(seededRandom(10), 96)];
    const filter = { scope: { tenant: 't' } };
    const space = { model: 'test-model', dim: 96 };
    const base: LexicalQuery = { filter, terms: ['kiwi', 'apple'], limit: 40, space };
    const extras = { scoreWith: vector, storedCosinesWith: vectors };
    const single = await store.lexicalSearch({ ...base, ...extras });
    const grouped = await store.lexicalSearchGroups({
      ...base,
      ...extras,
      groups: [
        { types: ['UserMemory'], limit: 10 },
        { types: ['LongTermMemory'], limit: 10 },
      ],
    });
    const found = [...single, ...grouped.flat()];
    expect(single.length).toBe(40);
    expect(grouped.flat().length).toBe(20);
    const ids = [...new Set(found.map((c) => c.id))];
    const dense = await store.denseSearch({
      filter: { ...filter, ids },
      vector,
      model: space.model,
      limit: found.length,
    });
    const cosineOf = new Map(dense.map((c) => [c.id, c.cosine]));
    const stored = await store.storedCosines('t', ids, vectors);
    for (const c of found) {
      expect(c.cosine, c.id).toBe(cosineOf.get(c.id));
      if (c.storedCosine !== undefined) expect(c.storedCosine, c.id).toBe(stored.get(c.id));
    }
    // Both kinds of rows were among them: some scored where they are, the others left to the caller.
    expect(found.some((c) => c.storedCosine === undefined)).toBe(true);
    expect(found.filter((c) => c.storedCosine !== undefined).length).toBeGreaterThan(10);
    // Without vectors, or with a zero one (similar to nothing), no cosines.
    for (const c of await store.lexicalSearch(base)) expect([c.cosine, c.storedCosine]).toEqual([undefined, undefined]);
    for (const c of await store.lexicalSearch({ ...base, scoreWith: new Float32Array(96) }))
      expect(c.cosine).toBeUndefined();
  });

  it("ranks a tenant with its own statistics: another tenant's memories never change its scores", async () => {
    const alone = open({}, 'alone.db');
    const shared = open({}, 'shared.db');
    const mine = corpus(2, 60, 'b', 'b');
    await alone.insert(mine);
    await shared.insert(corpus(3, 500, 'a', 'a'));
    await shared.insert(mine);
    const query: LexicalQuery = {
      filter: { scope: { tenant: 'b' } },
      terms: ['apple', 'grape'],
      limit: 20,
      space: SPACE,
    };
    const a = await alone.lexicalSearch(query);
    const b = await shared.lexicalSearch(query);
    expect(a.length).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(b.every((h) => h.id.startsWith('b'))).toBe(true);
  });

  it('applies the scope filter: statuses, types, session and ids', async () => {
    const store = open();
    await store.insert([
      withVector(new Float32Array([1, 0, 0, 0]), 'test-model', {
        id: 'on',
        scope: { tenant: 't', session: 's1' },
        text: 'apple pie',
      }),
      withVector(new Float32Array([1, 0, 0, 0]), 'test-model', {
        id: 'old',
        scope: { tenant: 't', session: 's1' },
        text: 'apple tart',
        status: 'archived',
      }),
      withVector(new Float32Array([1, 0, 0, 0]), 'test-model', {
        id: 'other',
        scope: { tenant: 't', session: 's2' },
        text: 'apple',
        type: 'UserMemory',
      }),
      makeRecord({ id: 'novector', scope: { tenant: 't' }, text: 'apple' }),
    ]);
    const ids = async (filter: LexicalQuery['filter']): Promise<string[]> =>
      (await store.lexicalSearch({ filter, terms: ['apple'], limit: 10, space: SPACE })).map((h) => h.id).sort();
    expect(await ids({ scope: { tenant: 't' } })).toEqual(['on', 'other']);
    expect(await ids({ scope: { tenant: 't' }, statuses: ['activated', 'archived'] })).toEqual(['old', 'on', 'other']);
    expect(await ids({ scope: { tenant: 't', session: 's1' } })).toEqual(['on']);
    expect(await ids({ scope: { tenant: 't' }, types: ['UserMemory'] })).toEqual(['other']);
    expect(await ids({ scope: { tenant: 't' }, ids: ['on', 'novector'] })).toEqual(['on']);
    expect(await ids({ scope: { tenant: 'nobody' } })).toEqual([]);
    // Without a space every row is a candidate, including the one without a vector.
    expect(
      (await store.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: ['apple'], limit: 10 }))
        .map((h) => h.id)
        .sort(),
    ).toEqual(['novector', 'on', 'other']);
  });

  it('finds CJK words (bigram phrases and single characters) and accented words', async () => {
    const store = open();
    await store.insert([
      withVector(new Float32Array([1, 0, 0, 0]), 'test-model', {
        id: 'zh',
        scope: { tenant: 't' },
        text: '我对花生过敏',
      }),
      withVector(new Float32Array([0, 1, 0, 0]), 'test-model', {
        id: 'fr',
        scope: { tenant: 't' },
        text: 'Un café au lait',
      }),
      withVector(new Float32Array([0, 0, 1, 0]), 'test-model', {
        id: 'ru',
        scope: { tenant: 't' },
        text: 'Ёжик в тумане',
      }),
    ]);
    const ids = async (term: string): Promise<string[]> =>
      (await store.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: [term], limit: 10, space: SPACE })).map(
        (h) => h.id,
      );
    expect(await ids('花生')).toEqual(['zh']);
    expect(await ids('花生过敏')).toEqual(['zh']);
    expect(await ids('生')).toEqual(['zh']);
    expect(await ids('生花')).toEqual([]);
    expect(await ids('cafe')).toEqual(['fr']);
    expect(await ids('CAFÉ')).toEqual(['fr']);
    expect(await ids('ёжик')).toEqual(['ru']);
  });

  it('follows text changes made by another process', async () => {
    const store = open();
    await store.insert(corpus(4, 30, 'm', 't'));
    const query: LexicalQuery = { filter: { scope: { tenant: 't' } }, terms: ['zebra'], limit: 10, space: SPACE };
    expect(await store.lexicalSearch(query)).toEqual([]); // builds the index
    await runChild([
      'mutate',
      join(dir, 'engram.db'),
      't',
      JSON.stringify({
        insert: [{ id: 'new', vector: [1, 0, 0, 0], text: 'a zebra crossing' }],
        update: [
          { id: 'm1', text: 'zebra zebra stripes' },
          { id: 'm2', status: 'archived' },
        ],
        delete: ['m3'],
      }),
    ]);
    expect((await store.lexicalSearch(query)).map((h) => h.id)).toEqual(['m1', 'new']);
    // Texts answered from the index follow the other process too, and match a read of the rows.
    const texts = await store.getTexts('t', ['m1', 'm3', 'new', 'm4', 'absent']);
    const rows = await store.get('t', ['m1', 'new', 'm4']);
    expect(new Map(texts.map((t) => [t.id, t]))).toEqual(
      new Map(rows.map((m) => [m.id, { id: m.id, text: m.text, updatedAt: m.updatedAt, type: m.type }])),
    );
    expect(texts.find((t) => t.id === 'm1')?.text).toBe('zebra zebra stripes');
    // So do their contexts (answered from the index, as a read of the rows makes them).
    const contexts = await store.getTexts('t', ['m1', 'new', 'm4'], { context: true });
    expect(new Map(contexts.map((t) => [t.id, t.context]))).toEqual(
      new Map(rows.map((m) => [m.id, { background: m.background, statedAt: m.statedAt, speakers: speakerNames(m) }])),
    );
    const apples = await store.lexicalSearch({ ...query, terms: [...WORDS], limit: 1000 });
    expect(apples.map((h) => h.id)).not.toContain('m1'); // its old words are gone
    expect(apples.map((h) => h.id)).not.toContain('m2');
    expect(apples.map((h) => h.id)).not.toContain('m3');
  });

  it('answers contexts from the index as a read of the rows makes them, through writes and a reload', async () => {
    const store = open();
    const rows = corpus(6, 12, 'm', 't').map((r, i) => ({
      ...r,
      background: i % 2 === 0 ? `answering ${WORDS[i % WORDS.length]}` : null,
      statedAt: i % 3 === 0 ? `2023-0${1 + (i % 9)}-1${i % 10}T08:00:00.000Z` : null,
      sources:
        i % 4 === 0
          ? [
              { type: 'chat' as const, role: `Speaker${i}` },
              { type: 'web' as const, role: 'x' },
            ]
          : [],
      metadata: i % 5 === 0 ? ({ speaker: `Name ${i}` } as JsonObject) : ({ speakers: 'not this key' } as JsonObject),
    }));
    await store.insert(rows);
    const ids = rows.map((r) => r.id);
    const fromRows = async (s: SqliteStore) =>
      new Map(
        (await s.get('t', ids)).map((m) => [
          m.id,
          { background: m.background, statedAt: m.statedAt, speakers: speakerNames(m) },
        ]),
      );
    const contexts = async (s: SqliteStore) =>
      new Map((await s.getTexts('t', ids, { context: true })).map((t) => [t.id, t.context]));
    const query: LexicalQuery = { filter: { scope: { tenant: 't' } }, terms: ['apple'], limit: 10, space: SPACE };
    await store.lexicalSearch(query); // builds the index: the texts below come from it
    expect(store.vectorCacheStats().lexicalIndexes).toBe(1);
    expect(await contexts(store)).toEqual(await fromRows(store));
    await store.update('t', 'm1', { background: 'a new question', updatedAt: new Date().toISOString() });
    await store.update('t', 'm0', { sources: [], metadata: {}, updatedAt: new Date().toISOString() });
    expect((await contexts(store)).get('m1')?.background).toBe('a new question');
    expect(await contexts(store)).toEqual(await fromRows(store));
    // A warm start loads the same contexts with the partition.
    await store.close();
    const next = open();
    await next.warm();
    expect(next.vectorCacheStats().lexicalIndexes).toBe(1);
    expect(await contexts(next)).toEqual(await fromRows(next));
  });

  it('stays right through many rewrites of the same rows (dead postings compacted)', async () => {
    const store = open();
    await store.insert(corpus(5, 20, 'm', 't'));
    const query = (term: string): Promise<LexicalCandidate[]> =>
      store.lexicalSearch({ filter: { scope: { tenant: 't' } }, terms: [term], limit: 100, space: SPACE });
    await query('apple');
    for (let round = 0; round < 120; round++) {
      for (let i = 0; i < 20; i++) {
        await store.update('t', `m${i}`, { text: `round${round} word${i % 3}`, updatedAt: new Date().toISOString() });
      }
    }
    expect((await query('round119')).length).toBe(20);
    expect(await query('round118')).toEqual([]);
    expect((await query('word1')).map((h) => h.id).sort()).toEqual(['m1', 'm10', 'm13', 'm16', 'm19', 'm4', 'm7']);
  });

  it('bounds common words: rare terms are ranked, common ones alone read only the newest matches', async () => {
    const store = open({ lexicalRankAllBelow: 100, lexicalScanCap: 50 });
    const random = seededRandom(6);
    await store.insert(
      Array.from({ length: 400 }, (_, i) =>
        withVector(randomVector(random, 4), 'test-model', {
          id: `w${i}`,
          scope: { tenant: 't' },
          text: i === 123 ? 'the common word okapi' : 'the common word',
        }),
      ),
    );
    const filter = { scope: { tenant: 't' } };
    const rare = await store.lexicalSearch({ filter, terms: ['the', 'common', 'okapi'], limit: 10, space: SPACE });
    expect(rare.map((h) => h.id)).toEqual(['w123']);
    const common = await store.lexicalSearch({ filter, terms: ['the', 'common'], limit: 10, space: SPACE });
    expect(common).toHaveLength(10);
    // Equal scores: the newest rows first.
    expect(common.map((h) => h.id)).toEqual(Array.from({ length: 10 }, (_, i) => `w${399 - i}`));
  });

  it('answers query after query as a fresh store answers each: single, grouped and bounded, filtered, through growth', async () => {
    const options = { lexicalRankAllBelow: 100, lexicalScanCap: 40 };
    const long = open(options, 'long.db');
    const rows = corpus(9, 300, 'm', 't').map((r, i) => ({
      ...r,
      type: (i % 3 === 0 ? 'UserMemory' : 'LongTermMemory') as MemoryType,
    }));
    const more = corpus(10, 200, 'n', 't');
    const filter = { scope: { tenant: 't' } };
    const grouped =
      (terms: string[], groups: Array<[MemoryType, number]>) =>
      (store: SqliteStore): Promise<LexicalCandidate[][]> =>
        store.lexicalSearchGroups({
          filter,
          terms,
          space: SPACE,
          groups: groups.map(([type, limit]) => ({ types: [type], limit })),
        });
    const queries: Array<(store: SqliteStore) => Promise<LexicalCandidate[][]>> = [
      async (store) => [await store.lexicalSearch({ filter, terms: ['kiwi', 'lemon'], limit: 15, space: SPACE })],
      async (store) => [
        await store.lexicalSearch({
          filter: { ...filter, types: ['UserMemory'] },
          terms: ['apple', 'fig'],
          limit: 15,
          space: SPACE,
        }),
      ],
      // Common words: the bounded path, one group per type.
      grouped(
        ['apple', 'banana'],
        [
          ['UserMemory', 10],
          ['LongTermMemory', 20],
        ],
      ),
      // The same groups the other way round: what a row belongs to is each call's own.
      grouped(
        ['apple', 'banana'],
        [
          ['LongTermMemory', 20],
          ['UserMemory', 10],
        ],
      ),
      // A rare word: every match ranked, the groups in one pass.
      grouped(
        ['mango'],
        [
          ['UserMemory', 5],
          ['LongTermMemory', 5],
        ],
      ),
    ];
    const fresh = async (
      name: string,
      query: (store: SqliteStore) => Promise<LexicalCandidate[][]>,
    ): Promise<LexicalCandidate[][]> => {
      const store = open(options, name);
      await store.insert(rows);
      if (name.startsWith('grown')) await store.insert(more);
      return query(store);
    };
    await long.insert(rows);
    let checked = 0;
    for (const phase of ['first', 'grown']) {
      if (phase === 'grown') await long.insert(more);
      for (let round = 0; round < 2; round++) {
        for (const [i, query] of queries.entries()) {
          const got = await query(long);
          expect(got.flat().length, `${phase} ${i}`).toBeGreaterThan(0);
          expect(got, `${phase} ${i}`).toEqual(await fresh(`${phase}-${round}-${i}.db`, query));
          checked++;
        }
      }
    }
    expect(checked).toBe(20);
  });

  it('rejects a malformed space with INVALID_INPUT', async () => {
    const store = open();
    for (const space of [{ model: '', dim: 4 }, { model: 'm', dim: 0 }, { model: 'm', dim: 1.5 }, null]) {
      await expect(
        store.lexicalSearch({
          filter: { scope: { tenant: 't' } },
          terms: ['x'],
          limit: 1,
          space: space as unknown as LexicalQuery['space'],
        }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
  });
});

describe('unicode61Tokens', () => {
  it("splits and folds exactly like FTS5's unicode61 remove_diacritics 2", () => {
    const db = openSqliteDatabase(':memory:');
    db.exec(
      "CREATE VIRTUAL TABLE f USING fts5(body, tokenize = 'unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row');",
    );
    const text =
      'C++ $100 a😀b café naïve Straße ﬁsh İstanbul x_y e-mail 3.14 ½ Ⅻ Ångström ǅ Ωmega ΆΈ Привет Ёж 한국어 ﾊﾝｶｸ ＡＢＣ Łódź Ærø ı Ș ț ṩ ỹ e\u0301t Ø đ Þ ð';
    db.prepare('INSERT INTO f (body) VALUES (?)').run(text);
    const fts = (db.prepare('SELECT term FROM v').pluck().all() as string[]).sort();
    db.close();
    expect([...new Set(unicode61Tokens(text))].sort()).toEqual(fts);
  });
});

describe('LexicalIndex', () => {
  it('keeps postings, lengths and sizes right through adds, replacements and removals', () => {
    const index = new LexicalIndex();
    index.add('a', slotMeta(1), 'red fox red');
    index.add('b', slotMeta(2), 'blue fox');
    expect(index.size).toBe(2);
    expect(index.meanLength).toBe(2.5);
    const red = index.postings(termKey('body', 'red'));
    expect(red.docs.map((d) => index.idOf(d))).toEqual(['a']);
    expect(red.tfs).toEqual([2]);
    index.add('a', slotMeta(1), 'green'); // replaces row 1
    expect(index.postings(termKey('body', 'red')).docs).toEqual([]);
    expect(index.postings(termKey('body', 'fox')).docs.map((d) => index.idOf(d))).toEqual(['b']);
    expect(index.remove(2)).toBe(true);
    expect(index.remove(2)).toBe(false);
    expect(index.size).toBe(1);
    expect(index.meanLength).toBe(1);
    for (let i = 0; i < 3000; i++) index.add(`x${i % 7}`, slotMeta(100 + (i % 7)), `w${i} shared`);
    const shared = index.postings(termKey('body', 'shared'));
    expect(shared.docs.map((d) => index.idOf(d)).sort()).toEqual(['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6']);
    expect(index.storedCount(termKey('body', 'shared'))).toBeLessThan(3000); // compacted
    expect(index.postings(termKey('body', 'w2999')).docs.map((d) => index.idOf(d))).toEqual(['x3']);
    expect(index.postings(termKey('body', 'w0')).docs).toEqual([]);
  });

  it('reads only the newest accepted postings when bounded', () => {
    const index = new LexicalIndex();
    for (let i = 0; i < 10; i++) index.add(`r${i}`, slotMeta(i + 1), 'same words');
    const newest = index.postings(termKey('body', 'same'), 3, (doc) => index.metaOf(doc).pk % 2 === 0);
    expect(newest.docs.map((d) => index.idOf(d))).toEqual(['r9', 'r7', 'r5']);
  });

  it("remembers a reusable filter's verdicts until the index changes, and never a one-off filter's", () => {
    const index = new LexicalIndex();
    const meta = (pk: number, type: MemoryType): SlotMeta => ({ ...slotMeta(pk), type });
    for (let i = 0; i < 6; i++) index.add(`r${i}`, meta(i + 1, i % 2 === 0 ? 'LongTermMemory' : 'UserMemory'), 'w');
    let tests = 0;
    const longTerm: SlotFilter = {
      key: 'long-term',
      reusable: true,
      test: (_id, m) => (tests++, m.type === 'LongTermMemory'),
    };
    const accepted = (filter: SlotFilter): string[] => {
      const accepts = index.accepts(filter);
      return Array.from({ length: index.docCount }, (_, doc) => doc)
        .filter((doc) => accepts(doc))
        .map((doc) => index.idOf(doc) as string);
    };
    expect(accepted(longTerm)).toEqual(['r0', 'r2', 'r4']);
    expect(tests).toBe(6);
    expect(accepted(longTerm)).toEqual(['r0', 'r2', 'r4']);
    expect(tests).toBe(6);
    // A change forgets them: r0 becomes a user memory, r2 goes.
    index.add('r0', meta(1, 'UserMemory'), 'w');
    index.remove(3);
    expect(accepted(longTerm)).toEqual(['r4']);
    expect(tests).toBeGreaterThan(6);
    const oneOff: SlotFilter = { key: 'ids', reusable: false, test: () => (tests++, true) };
    const before = tests;
    expect(accepted(oneOff)).toEqual(['r1', 'r3', 'r4', 'r5', 'r0']);
    expect(accepted(oneOff)).toEqual(['r1', 'r3', 'r4', 'r5', 'r0']);
    expect(tests).toBe(before + 10);
  });
});
