import { describe, expect, it } from 'vitest';
import type { MemoryText, SearchGroup } from '../../src/store/memory-store.js';
import { DocumentArena } from '../../src/store/sqlite/document-arena.js';
import { createSqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite/index.js';
import { CONTEXT_ANALYZER } from '../../src/text/document-analyzer.js';
import { TermDictionary } from '../../src/text/term-dictionary.js';
import { decodeDocument } from '../../src/text/term-document.js';
import { unitVector } from '../../src/vector/unit-cosine.js';
import { randomVector, seededRandom, withVector } from './fixtures/records.js';

const T = 'docs-tenant';
const SPACE = { model: 'test-model', dim: 4 };
const ANALYZER = CONTEXT_ANALYZER.name;

/** Rows with every kind of context: none, a background, a day stated, speakers from sources and metadata, non-Latin text. */
function rows(n: number, seed = 5) {
  const random = seededRandom(seed);
  const texts = [
    'Yes, painted it last week!',
    'Caroline went hiking',
    'café au lait',
    '我喜欢画画',
    'the trip to Paris',
  ];
  return Array.from({ length: n }, (_, i) =>
    withVector(randomVector(random, 4), 'test-model', {
      id: `d${i}`,
      scope: { tenant: T },
      text: `${texts[i % texts.length] as string} ${i}`,
      background: i % 3 === 0 ? `Did you paint it in May? (${i})` : null,
      statedAt: i % 4 === 0 ? '2023-05-08T10:00:00.000Z' : null,
      sources: i % 5 === 0 ? [{ type: 'chat', role: i % 2 === 0 ? 'Caroline' : 'Mel' }] : [],
      metadata: i % 7 === 0 ? { speaker: 'Jon' } : {},
    }),
  );
}

/** Every text the store answers with a document holds the analyzer's document of its text and context. */
function expectAnalysed(texts: readonly MemoryText[]): void {
  for (const t of texts) {
    expect(t.document, t.id).toBeDefined();
    expect(t.context, t.id).toBeDefined();
    if (t.document === undefined || t.context === undefined) continue;
    expect(decodeDocument(t.document), t.id).toEqual(CONTEXT_ANALYZER.analyze(t.text, t.context));
  }
}

/** A store of 40 rows with 24-dimension vectors, the even ones of unit length (the cache keeps the others rescaled). */
async function storeOfVectors(seed: number) {
  const store = createSqliteStore({ path: ':memory:' });
  const random = seededRandom(seed);
  const records = Array.from({ length: 40 }, (_, i) => {
    const raw = randomVector(random, 24);
    const vector = i % 2 === 0 ? (unitVector(raw) as Float32Array) : raw;
    return withVector(vector, 'test-model', { id: `n${i}`, scope: { tenant: T }, text: `row ${i}` });
  });
  await store.insert(records);
  return { store, random, records };
}

async function openWithIndex(options: Partial<SqliteStoreOptions> = {}) {
  const store = createSqliteStore({ path: ':memory:', ...options });
  await store.insert(rows(60));
  // The lexical index (and its documents) is built by the first lexical search of the space.
  await store.lexicalSearch({ filter: { scope: { tenant: T } }, terms: ['paint'], limit: 5, space: SPACE });
  return store;
}

describe('documents analysed when the SQLite lexical index loads or a write changes a row', () => {
  it("getTexts returns each indexed row's document, as the analyzer makes it from the text and context", async () => {
    const store = await openWithIndex();
    const ids = Array.from({ length: 60 }, (_, i) => `d${i}`);
    const texts = await store.getTexts(T, ids, { context: true, analyzer: ANALYZER });
    expect(texts).toHaveLength(60);
    expectAnalysed(texts);
    // Only when asked for by the analyzer's name.
    const plain = await store.getTexts(T, ids, { context: true });
    expect(plain.every((t) => t.document === undefined)).toBe(true);
    const other = await store.getTexts(T, ids, { context: true, analyzer: 'another-analyzer' });
    expect(other.every((t) => t.document === undefined)).toBe(true);
    await store.close();
  });

  it('searches asking for the analyzer bring each hit its document, the one getTexts gives', async () => {
    const store = await openWithIndex();
    const filter = { scope: { tenant: T } };
    const vector = randomVector(seededRandom(3), 4);
    const documentsOf = async (hits: ReadonlyArray<{ id: string; document?: unknown }>) => {
      const texts = await store.getTexts(
        T,
        hits.map((h) => h.id),
        { context: true, analyzer: ANALYZER },
      );
      expectAnalysed(texts);
      return new Map(texts.map((t) => [t.id, t.document]));
    };
    const dense = await store.denseSearch({ filter, vector, model: SPACE.model, limit: 20, analyzer: ANALYZER });
    const lexical = await store.lexicalSearch({
      filter,
      terms: ['paint', 'trip'],
      limit: 20,
      space: SPACE,
      analyzer: ANALYZER,
    });
    // The rows are long-term memories: the second group holds them too.
    const groups: SearchGroup[] = [
      { types: ['LongTermMemory'], limit: 7 },
      { types: ['UserMemory', 'LongTermMemory'], limit: 9 },
    ];
    const denseGroups = await store.denseSearchGroups({
      filter,
      vector,
      model: SPACE.model,
      groups,
      analyzer: ANALYZER,
    });
    const lexicalGroups = await store.lexicalSearchGroups({
      filter,
      terms: ['paint'],
      space: SPACE,
      groups,
      analyzer: ANALYZER,
    });
    const newest = await store.newestIds(filter, 15, { analyzer: ANALYZER });
    expect(newest).toHaveLength(15);
    for (const hits of [dense, lexical, ...denseGroups, ...lexicalGroups, newest]) {
      const expected = await documentsOf(hits);
      for (const hit of hits) expect(hit.document, hit.id).toEqual(expected.get(hit.id));
    }
    expect(dense).toHaveLength(20);
    expect(lexical.length).toBeGreaterThan(5);
    expect(denseGroups.flat().length + lexicalGroups.flat().length).toBeGreaterThan(10);
    // Only when asked for, and only the analyzer's own.
    for (const analyzer of [undefined, 'another-analyzer']) {
      const hits = [
        ...(await store.denseSearch({ filter, vector, model: SPACE.model, limit: 20, analyzer })),
        ...(await store.lexicalSearch({ filter, terms: ['paint', 'trip'], limit: 20, space: SPACE, analyzer })),
        ...(await store.newestIds(filter, 15, { analyzer })),
      ];
      expect(hits).toHaveLength(20 + lexical.length + 15);
      expect(hits.every((h) => h.document === undefined)).toBe(true);
    }
    await store.close();
  });

  it('a repeated newestIds read brings the documents of the rows it names now: fresh objects, none stale', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await store.insert(rows(40));
    const filter = { scope: { tenant: T }, validAt: '2031-01-01T00:00:00.000Z' };
    // No lexical index loaded yet: no documents, and none remembered as missing.
    const before = await store.newestIds(filter, 10, { analyzer: ANALYZER });
    expect(before.every((h) => h.document === undefined)).toBe(true);
    await store.lexicalSearch({ filter: { scope: { tenant: T } }, terms: ['paint'], limit: 5, space: SPACE });
    const first = await store.newestIds(filter, 10, { analyzer: ANALYZER });
    const second = await store.newestIds(filter, 10, { analyzer: ANALYZER });
    expect(second).toEqual(first);
    expect(second[0]).not.toBe(first[0]);
    const expected = await documentsOf(first);
    for (const hit of first) expect(hit.document, hit.id).toEqual(expected.get(hit.id));
    // A changed row is a new version: its new document, not the one found for the old.
    const changed = first[3]?.id as string;
    await store.update(T, changed, { text: 'kestrel over the lake', updatedAt: '2030-01-01T00:00:00.000Z' });
    const after = await store.newestIds(filter, 10, { analyzer: ANALYZER });
    const hit = after.find((h) => h.id === changed);
    expect(hit?.document && decodeDocument(hit.document).tokens).toEqual(['kestrel', 'over', 'lake']);
    const again = await documentsOf(after);
    for (const h of after) expect(h.document, h.id).toEqual(again.get(h.id));
    await store.close();

    async function documentsOf(hits: ReadonlyArray<{ id: string }>) {
      const texts = await store.getTexts(
        T,
        hits.map((h) => h.id),
        { analyzer: ANALYZER },
      );
      return new Map(texts.map((t) => [t.id, t.document]));
    }
  });

  it('newestIds gives the rows the vector cache holds bit for bit their storedCosine, the others none', async () => {
    const { store, random } = await storeOfVectors(8);
    const filter = { scope: { tenant: T } };
    const vectors = [randomVector(random, 24)];
    // Before the partition is loaded nothing is in memory: no cosine, and no read for one.
    expect(
      (await store.newestIds(filter, 40, { storedCosinesWith: vectors })).some((r) => r.storedCosine !== undefined),
    ).toBe(false);
    await store.preloadVectors({ tenant: T, model: 'test-model', dim: 24 });
    const rows = await store.newestIds(filter, 40, { storedCosinesWith: vectors });
    const stored = await store.storedCosines(
      T,
      rows.map((r) => r.id),
      vectors,
    );
    const given = rows.filter((r) => r.storedCosine !== undefined);
    expect(given.length).toBeGreaterThan(5);
    expect(given.length).toBeLessThan(rows.length);
    for (const r of given) expect(r.storedCosine, r.id).toBe(stored.get(r.id));
    await store.close();
  });

  it('newestIds naming the vectors’ space loads the partition a dense search would, then gives every cosine it holds', async () => {
    const { store, random, records } = await storeOfVectors(9);
    const filter = { scope: { tenant: T } };
    const vectors = [randomVector(random, 24)];
    const space = { model: 'test-model', dim: 24 };
    // No dense search ran: the space alone makes the store hold the rows' vectors.
    const rows = await store.newestIds(filter, 40, { storedCosinesWith: vectors, space });
    const stored = await store.storedCosines(
      T,
      rows.map((r) => r.id),
      vectors,
    );
    const given = rows.filter((r) => r.storedCosine !== undefined);
    expect(given.length).toBeGreaterThan(5);
    for (const r of given) expect(r.storedCosine, r.id).toBe(stored.get(r.id));
    // The rows it leaves without one are those the partition keeps rescaled (not unit length).
    const rescaled = new Set(records.filter((_, i) => i % 2 === 1).map((r) => r.id));
    for (const r of rows) expect(r.storedCosine === undefined, r.id).toBe(rescaled.has(r.id));
    await store.close();
  });

  it('newestIds naming the space with the store’s analyzer loads the lexical index a lexical search would, then gives every document', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await store.insert(rows(40));
    const filter = { scope: { tenant: T } };
    // No lexical search ran: the space and the analyzer alone make the store hold the documents.
    const newest = await store.newestIds(filter, 15, { analyzer: ANALYZER, space: SPACE });
    expect(newest).toHaveLength(15);
    const texts = await store.getTexts(
      T,
      newest.map((h) => h.id),
      { analyzer: ANALYZER },
    );
    expect(texts.every((t) => t.document !== undefined)).toBe(true);
    const expected = new Map(texts.map((t) => [t.id, t.document]));
    for (const hit of newest) expect(hit.document, hit.id).toEqual(expected.get(hit.id));
    // Another analyzer's documents are not the store's to give: none, and no index built for them.
    const other = createSqliteStore({ path: ':memory:' });
    await other.insert(rows(40));
    const without = await other.newestIds(filter, 15, { analyzer: 'another-analyzer', space: SPACE });
    expect(without.every((h) => h.document === undefined)).toBe(true);
    expect(other.vectorCacheStats().lexicalIndexes).toBe(0);
    await other.close();
    await store.close();
  });

  it('updates, deletes and the compaction of dead documents keep every document its row’s', async () => {
    const store = await openWithIndex();
    await store.update(T, 'd3', {
      text: 'kestrel over the lake',
      background: 'Where were you?',
      updatedAt: '2030-01-01T00:00:00.000Z',
    });
    await store.update(T, 'd4', { statedAt: '2024-01-02T00:00:00.000Z', updatedAt: '2030-01-01T00:00:00.000Z' });
    await store.insert(rows(1200, 9).map((r) => ({ ...r, id: `e${r.id}` })));
    // A read catches the index up with the inserts, so the deletes below make dead documents.
    expect(await store.getTexts(T, ['ed0', 'ed1199'])).toHaveLength(2);
    // More dead documents than live ones: the index compacts (renumbering every document).
    await store.delete(
      T,
      Array.from({ length: 1200 }, (_, i) => `ed${i}`),
    );
    const ids = [...Array.from({ length: 60 }, (_, i) => `d${i}`)];
    const texts = await store.getTexts(T, ids, { context: true, analyzer: ANALYZER });
    expect(texts).toHaveLength(60);
    expectAnalysed(texts);
    const d3 = texts.find((t) => t.id === 'd3');
    expect(d3?.document && decodeDocument(d3.document).tokens).toEqual(['kestrel', 'over', 'lake']);
    const d4 = texts.find((t) => t.id === 'd4');
    expect(d4?.document && decodeDocument(d4.document).context).toContain('2024');
    await store.close();
  });

  it('keeps none with `analyzer: null`, and counts them in the cache bytes otherwise', async () => {
    const none = await openWithIndex({ analyzer: null });
    const texts = await none.getTexts(T, ['d1', 'd2'], { context: true, analyzer: ANALYZER });
    expect(texts.map((t) => t.document)).toEqual([undefined, undefined]);
    const analysed = await openWithIndex();
    expect(analysed.vectorCacheStats().bytes).toBeGreaterThan(none.vectorCacheStats().bytes);
    await none.close();
    await analysed.close();
  });
});

describe('DocumentArena', () => {
  it('keeps each document’s ids and field ends, through growth and compaction', () => {
    const dictionary = new TermDictionary();
    const arena = new DocumentArena(dictionary);
    const docs = Array.from({ length: 300 }, (_, i) => Array.from({ length: i % 17 }, (_, k) => (i * 7 + k) % 50));
    docs.forEach((d, i) => arena.append(d, Math.floor(d.length / 2), Math.floor(d.length / 4) + (i % 2)));
    docs.forEach((d, i) => {
      const doc = arena.document(i);
      expect(Array.from(doc.terms)).toEqual(d);
      expect(doc.textEnd).toBe(Math.floor(d.length / 2));
      expect(doc.contextEnd).toBe(Math.floor(d.length / 2) + Math.floor(d.length / 4) + (i % 2));
    });
    const keep = [5, 17, 250, 299];
    const compacted = arena.compacted(keep);
    expect(compacted.size).toBe(4);
    keep.forEach((old, i) => expect(compacted.document(i)).toEqual(arena.document(old)));
  });
});
