import { describe, expect, it } from 'vitest';
import { scorePool } from '../../src/recall/rank-pool.js';
import { ENGRAM_PROFILE, SEED_PROFILE } from '../../src/recall/recall-profile.js';
import { fuseSpread, fuseSpreadTerms } from '../../src/recall/spread-fusion.js';
import { bm25Scores, DEFAULT_BM25 } from '../../src/text/bm25.js';
import { bm25TermIdScores } from '../../src/text/bm25-term-ids.js';
import { CONTEXT_ANALYZER } from '../../src/text/document-analyzer.js';
import { poolDocumentOf, speakerNames, type PoolDocument } from '../../src/text/pool-document.js';
import { TermDictionary } from '../../src/text/term-dictionary.js';
import { decodeDocument, encodeTermDocument, type RankDocument } from '../../src/text/term-document.js';

/** Seeded PRNG, so a failure names a reproducible pool. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A small vocabulary so words repeat within and across documents; the last few never occur in one.
const WORDS = ['walrus', 'otter', 'heron', 'swim', 'may', '2023', 'ana', 'bo', 'trip', 'paint', 'x', 'y'];
const UNSEEN = ['kestrel', 'plover'];

function poolOf(rand: () => number, size: number): PoolDocument[] {
  const words = (max: number): string[] =>
    Array.from({ length: Math.floor(rand() * max) }, () => WORDS[Math.floor(rand() * WORDS.length)] as string);
  return Array.from({ length: size }, () => ({ tokens: words(12), context: words(8), speakers: words(2) }));
}

function queryOf(rand: () => number): string[] {
  const all = [...WORDS, ...UNSEEN];
  // Repeats are kept: a query token counts with its multiplicity.
  return Array.from({ length: 1 + Math.floor(rand() * 6) }, () => all[Math.floor(rand() * all.length)] as string);
}

/** Every number of two results is the same double (`Object.is`: -0 and NaN included). */
function expectSameNumbers(a: Record<string, unknown>, b: Record<string, unknown>): void {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  for (const key of Object.keys(a)) {
    const x = a[key];
    const y = b[key];
    if (ArrayBuffer.isView(x)) {
      const xs = Array.from(x as unknown as ArrayLike<number>);
      const ys = Array.from(y as unknown as ArrayLike<number>);
      expect(xs.length, key).toBe(ys.length);
      xs.forEach((v, i) => expect(Object.is(v, ys[i]), `${key}[${i}]: ${v} vs ${ys[i]}`).toBe(true));
    } else expect(Object.is(x, y), `${key}: ${String(x)} vs ${String(y)}`).toBe(true);
  }
}

const spread = { weights: { base: 0.5, short: 0.35 }, bm25: DEFAULT_BM25, contextWeight: 0.5 };

describe('ranking documents of term ids', () => {
  it('a term document decodes to the strings it was made of', () => {
    const dictionary = new TermDictionary();
    const document = { tokens: ['walrus', 'swim', 'walrus'], context: ['8', 'may'], speakers: ['ana'] };
    const encoded = encodeTermDocument(document, dictionary);
    expect(Array.from(encoded.terms)).toEqual([0, 1, 0, 2, 3, 4]);
    expect(decodeDocument(encoded)).toEqual(document);
    expect(dictionary.find('walrus')).toBe(0);
    expect(dictionary.find('kestrel')).toBe(-1);
  });

  it('BM25 over ids is BM25 over the strings, bit for bit (context, repeats, words no document has)', () => {
    const rand = random(7);
    for (let round = 0; round < 200; round++) {
      const pool = poolOf(rand, 1 + Math.floor(rand() * 30));
      const query = queryOf(rand);
      const dictionary = new TermDictionary();
      const terms = pool.map((d) => encodeTermDocument(d, dictionary));
      const ids = query.map((t) => dictionary.find(t));
      const strings = bm25Scores(
        query,
        pool.map((d) => d.tokens),
        DEFAULT_BM25,
        { tokens: pool.map((d) => d.context), weight: 0.5 },
      );
      expectSameNumbers({ ...bm25TermIdScores(ids, terms, 0.5) }, { ...strings });
    }
  });

  it('the spread fusion over ids gives the same scores, weights and speaker matches as over the strings', () => {
    const rand = random(11);
    let matched = 0;
    for (let round = 0; round < 200; round++) {
      const pool = poolOf(rand, 1 + Math.floor(rand() * 30));
      const cosines = pool.map(() => rand() * 2 - 1);
      const query = round % 10 === 0 ? [] : queryOf(rand);
      const dictionary = new TermDictionary();
      const terms = pool.map((d) => encodeTermDocument(d, dictionary));
      const byIds = fuseSpreadTerms(
        query.map((t) => dictionary.find(t)),
        terms,
        cosines,
        spread,
      );
      const byStrings = fuseSpread(
        query,
        pool.map((d, i) => ({ ...d, cosine: cosines[i] as number })),
        spread,
      );
      expectSameNumbers({ ...byIds }, { ...byStrings });
      if (byStrings.speakerWeight > 0) matched++;
    }
    // The speaker signal took part in some pools, so its path was compared too.
    expect(matched).toBeGreaterThan(10);
  });

  it('scorePool ranks a pool of term documents, strings, or both mixed, to the same numbers', () => {
    const rand = random(13);
    for (let round = 0; round < 100; round++) {
      const pool = poolOf(rand, 2 + Math.floor(rand() * 20));
      const cosines = pool.map(() => rand());
      const query = queryOf(rand);
      const dictionary = new TermDictionary();
      // Some documents as the store keeps them (ids), the others as strings (a mixed pool).
      const mixed: RankDocument[] = pool.map((d) => (rand() < 0.5 ? encodeTermDocument(d, dictionary) : d));
      const allTerms: RankDocument[] = pool.map((d) => encodeTermDocument(d, new TermDictionary()));
      const options = { weights: spread.weights, profile: ENGRAM_PROFILE };
      const expected = scorePool(query, pool, cosines, options);
      expectSameNumbers({ ...scorePool(query, mixed, cosines, options) }, { ...expected });
      // Documents of two dictionaries: scored as strings.
      expectSameNumbers({ ...scorePool(query, allTerms, cosines, options) }, { ...expected });
    }
    // The linear fusion (the reference profile) reads the text's tokens of either kind.
    const pool = poolOf(random(3), 12);
    const cosines = pool.map((_, i) => i / 12);
    const dictionary = new TermDictionary();
    const options = { weights: SEED_PROFILE.resolveWeights({}), profile: SEED_PROFILE };
    expectSameNumbers(
      {
        ...scorePool(
          ['walrus', 'swim'],
          pool.map((d) => encodeTermDocument(d, dictionary)),
          cosines,
          options,
        ),
      },
      { ...scorePool(['walrus', 'swim'], pool, cosines, options) },
    );
  });

  it("the default profile's analyzer makes the profile's own pool documents (text, context, speakers)", () => {
    const memory = {
      text: 'Yes, painted it last week!',
      background: 'Did you paint it in May?',
      statedAt: '2023-05-08T10:00:00Z',
      sources: [{ type: 'chat' as const, role: 'Caroline' }],
      metadata: { speaker: 'Mel' },
    };
    const context = { background: memory.background, statedAt: memory.statedAt, speakers: speakerNames(memory) };
    const analysed = CONTEXT_ANALYZER.analyze(memory.text, context);
    expect(analysed).toEqual(poolDocumentOf(memory, ENGRAM_PROFILE));
    expect(analysed.context).toContain('2023');
    expect(analysed.speakers).toHaveLength(2);
    expect(ENGRAM_PROFILE.analyzer).toBe(CONTEXT_ANALYZER);
    expect(SEED_PROFILE.analyzer).toBeUndefined();
  });
});
