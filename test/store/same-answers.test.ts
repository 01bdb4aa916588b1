/**
 * "Same answers": one fixture loaded into SQLite and into PostgreSQL (a real server started by
 * the test, app-side and — when the server has it — through pgvector's HNSW index, and PGlite
 * with pgvector) through the Engram facade; recall (both profiles, dense and
 * lexical channels) and search must return the same hits in the same order, scores within 1e-6.
 *
 * Scope of the guarantee: the corpus-level lexical channel returns each engine's own top matches
 * (FTS5 bm25 in SQLite, ts_rank in PostgreSQL). When a query's full-text matches fit in the
 * lexical pool (the dense pool size, 50 for limit 5) both engines return the same set and the
 * answers are identical; the fixture keeps every word below that, and the test checks it.
 */
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecallResult } from '../../src/model/api.js';
import { Engram } from '../../src/engram.js';
import { ENGRAM_PROFILE } from '../../src/recall/recall-profile.js';
import type { MemoryInput } from '../../src/model/memory.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { pgExtensionInstalled } from '../support/pg-extensions.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { seededRandom } from './fixtures/records.js';

const ENGLISH = (
  'apple river mountain guitar doctor coffee garden rocket winter summer lake violin camera bicycle ' +
  'hospital museum island forest desert ocean piano painting kitchen library airport train ticket ' +
  'birthday wedding holiday vacation concert festival marathon yoga soccer tennis chess recipe ' +
  'pasta curry sushi salad tomato cheese chocolate lemon ginger honey peanut allergy medicine ' +
  'dentist teacher student project deadline meeting manager startup investor contract lawyer ' +
  'apartment neighbor landlord garage sunset sunrise lantern compass harbor bridge castle'
).split(' ');
const OTHER = [
  'café',
  'crème',
  'brûlée',
  'naïve',
  'собака',
  'кошка',
  'молоко',
  'ёлка',
  '花生',
  '过敏',
  '咖啡',
  '东京',
  'すし',
  'ラーメン',
];

function fixture(): Array<MemoryInput & { user: string }> {
  const random = seededRandom(2024);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)] as T;
  const out: Array<MemoryInput & { user: string }> = [];
  for (let i = 0; i < 300; i++) {
    const words = Array.from({ length: 3 + Math.floor(random() * 4) }, () =>
      random() < 0.15 ? pick(OTHER) : pick(ENGLISH),
    );
    const text = `${i % 2 === 0 ? 'The' : 'A'} ${words.join(' ')}.`;
    out.push({
      id: `fx-${String(i).padStart(4, '0')}`,
      text,
      type: i % 5 === 0 ? 'UserMemory' : 'LongTermMemory',
      tags: i % 4 === 0 ? ['tagged'] : [],
      statedAt: new Date(Date.UTC(2023, 4, 1 + (i % 28), 13, 56)).toISOString(),
      user: i % 6 === 5 ? 'bob' : 'alice',
    });
  }
  return out;
}

const QUERIES = [
  'what does alice like about coffee and chocolate',
  'peanut allergy medicine',
  'guitar',
  'train ticket to the airport',
  'wedding in the castle by the harbor',
  'yoga marathon tennis',
  'café crème',
  'собака молоко',
  '花生过敏',
  'すし ラーメン 東京',
  'doctor dentist hospital',
  'project deadline meeting with the manager',
  'lemon ginger honey',
  'the',
  'a completely unrelated query about quantum chromodynamics',
  'sunset over the lake in winter',
  'naïve startup investor contract lawyer',
  'library museum painting',
  'ёлка',
  'chess pasta',
];

/**
 * The hashed bag-of-words embedder plus a small dense component seeded by the text: vectors of
 * different texts are never orthogonal, as with a real sentence encoder. (With the sparse hashed
 * vectors alone, hundreds of rows tie at cosine exactly 0 and the dense pool boundary falls inside
 * the tie; see the note on SQLite's native scan in the report.)
 */
class DenseHashedEmbedder implements Embedder {
  private readonly inner = new HashedEmbedder({ dim: 64 });
  readonly model = 'dense-hashed-64';
  readonly dim = 64;
  async embed(texts: string[]): Promise<Float32Array[]> {
    const sparse = await this.inner.embed(texts);
    return sparse.map((v, t) => {
      let seed = 0;
      for (const ch of texts[t] as string) seed = (Math.imul(seed, 31) + (ch.codePointAt(0) ?? 0)) >>> 0;
      const random = seededRandom(seed);
      return v.map((x) => x + (random() * 2 - 1) * 0.05);
    });
  }
}

interface Backend {
  name: string;
  engram: Engram;
}

let cluster: PgCluster;
let pglite: PGlite;
let pglitePool: pg.Pool;
const backends: Backend[] = [];

async function load(name: string, store: MemoryStore): Promise<Backend> {
  let n = 0;
  const engram = await Engram.open({
    store,
    embedder: new DenseHashedEmbedder(),
    clock: () => new Date(Date.UTC(2024, 0, 1, 0, 0, n++)),
    trackUsage: false,
  });
  const byUser = new Map<string, MemoryInput[]>();
  for (const item of fixture()) {
    const { user, ...input } = item;
    byUser.set(user, [...(byUser.get(user) ?? []), input]);
  }
  for (const [user, inputs] of byUser) await engram.addMany(inputs, { scope: { tenant: 'acme', user } });
  // A second tenant with the same texts: must never leak into acme's answers.
  await engram.addMany(
    fixture()
      .slice(0, 50)
      .map(({ user: _user, ...input }) => ({ ...input, id: `other-${input.id}` })),
    { scope: { tenant: 'globex', user: 'alice' } },
  );
  return { name, engram };
}

beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_same' });
  pglite = await PGlite.create('memory://', { extensions: { vector } });
  pglitePool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
  pglitePool.options.max = 1;
  backends.push(await load('sqlite', createSqliteStore({ path: ':memory:' })));
  backends.push(await load('postgres', await createPostgresStore({ connectionString: cluster.url, vector: 'app' })));
  // With pgvector on this server (always under CI): alice's ~300 rows through its HNSW index.
  if (pgExtensionInstalled('vector')) {
    const url = await cluster.createDatabase('engram_same_pgvector');
    backends.push(
      await load(
        'postgres+pgvector',
        await createPostgresStore({ connectionString: url, vector: 'pgvector', exactSearchMaxRows: 100 }),
      ),
    );
  }
  // exactSearchMaxRows 100: alice's ~300 rows go through pgvector's HNSW index.
  backends.push(
    await load(
      'pglite+pgvector',
      await createPostgresStore({ pool: pglitePool, vector: 'pgvector', exactSearchMaxRows: 100 }),
    ),
  );
});

afterAll(async () => {
  for (const b of backends) await b.engram.close();
  await pglitePool?.end();
  await pglite?.close();
  await cluster?.stop();
});

function summary(result: RecallResult): Array<{ id: string; score: number; cosine: number; bm25: number }> {
  return [...result.hits, ...result.cut].map((h) => ({
    id: h.memory.id,
    score: h.score,
    cosine: h.explanation.cosine,
    bm25: h.explanation.bm25,
  }));
}

function expectSame(
  label: string,
  a: Array<{ id: string; score: number; cosine?: number; bm25?: number }>,
  b: Array<{ id: string; score: number; cosine?: number; bm25?: number }>,
): void {
  expect(
    b.map((x) => x.id),
    `${label}: ids/order`,
  ).toEqual(a.map((x) => x.id));
  a.forEach((x, i) => {
    const y = b[i]!;
    expect(Math.abs(x.score - y.score), `${label}: score of ${x.id}`).toBeLessThan(1e-6);
    if (x.cosine !== undefined) expect(Math.abs(x.cosine - (y.cosine ?? NaN)), `${label}: cosine`).toBeLessThan(1e-6);
    if (x.bm25 !== undefined) expect(Math.abs(x.bm25 - (y.bm25 ?? NaN)), `${label}: bm25`).toBeLessThan(1e-6);
  });
}

describe('same answers from SQLite and PostgreSQL', () => {
  it('the lexical channel sees the same matches (every fixture word fits in the lexical pool)', async () => {
    const [sqlite, ...others] = backends.map((b) => b.engram.store);
    for (const word of [...ENGLISH, ...OTHER]) {
      const query = {
        filter: { scope: { tenant: 'acme', user: 'alice' } },
        terms: [word.normalize('NFKC').toLowerCase()],
        limit: 500,
      };
      const expected = (await sqlite!.lexicalSearch(query)).map((c) => c.id).sort();
      expect(expected.length, word).toBeGreaterThan(0);
      expect(expected.length, word).toBeLessThanOrEqual(50);
      for (const store of others)
        expect((await store.lexicalSearch(query)).map((c) => c.id).sort(), word).toEqual(expected);
    }
  });

  for (const profile of ['engram', 'seed'] as const) {
    it(`recall (${profile} profile): same hits, same order, scores within 1e-6`, async () => {
      let nonEmpty = 0;
      let lexical = 0;
      for (const query of QUERIES) {
        for (const user of ['bob', undefined]) {
          const options = { scope: { tenant: 'acme', ...(user ? { user } : {}) }, limit: 10, threshold: 0.05, profile };
          const results = await Promise.all(backends.map((b) => b.engram.recall(query, options)));
          const reference = summary(results[0]!);
          // The documented scope: all full-text matches of the query fit in the lexical pool.
          const tokens = [...new Set(ENGRAM_PROFILE.tokenize(query))];
          if (profile === 'engram' && tokens.length > 0) {
            const all = await backends[0]!.engram.store.lexicalSearch({
              filter: { scope: options.scope },
              terms: tokens,
              limit: 5000,
            });
            expect(all.length, `matches of "${query}"`).toBeLessThanOrEqual(results[0]!.poolSize);
          }
          if (reference.length > 0) nonEmpty++;
          lexical += [...results[0]!.hits, ...results[0]!.cut].filter((h) =>
            h.explanation.channels.includes('lexical'),
          ).length;
          for (let i = 1; i < backends.length; i++) {
            expectSame(`${backends[i]!.name} "${query}" ${user ?? '*'}`, reference, summary(results[i]!));
            expect(results[i]!.poolSize, `${backends[i]!.name} pool "${query}"`).toBe(results[0]!.poolSize);
          }
          expect(reference.every((h) => h.id.startsWith('fx-'))).toBe(true);
        }
      }
      expect(nonEmpty).toBeGreaterThan(QUERIES.length);
      // The engram profile really exercised the corpus lexical channel.
      if (profile === 'engram') expect(lexical).toBeGreaterThan(50);
    });
  }

  it('search (fast mode): same hits, same order, relevance within 1e-6', async () => {
    for (const query of QUERIES) {
      const results = await Promise.all(
        backends.map((b) => b.engram.search(query, { scope: { tenant: 'acme', user: 'alice' }, topK: 8 })),
      );
      const reference = results[0]!.hits.map((h) => ({ id: h.memory.id, score: h.relevance }));
      for (let i = 1; i < backends.length; i++) {
        expectSame(
          `search ${backends[i]!.name} "${query}"`,
          reference,
          results[i]!.hits.map((h) => ({ id: h.memory.id, score: h.relevance })),
        );
      }
    }
  });
});
