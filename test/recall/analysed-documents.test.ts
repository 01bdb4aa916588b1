/**
 * The SQLite store's analysed documents (term ids made when a row is indexed) change no answer:
 * the same data in a store that keeps them and one that does not (`analyzer: null`, every document
 * tokenised at read time) gives the same recalls and searches, to the last bit of every score.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import type { MemoryInput } from '../../src/model/memory.js';
import type { MemoryType } from '../../src/model/memory-type.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { CONTEXT_ANALYZER } from '../../src/text/document-analyzer.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { seededRandom } from '../store/fixtures/records.js';

const SCOPE = { tenant: 'acme', user: 'alice' };
const WORDS = (
  'paint paintings painted trip Paris hiking lake coffee café guitar concert May June birthday adopt ' +
  'dog shelter running marathon sister school teacher book novel camping mountains 花生 过敏 собака'
).split(' ');
const SPEAKERS = ['Caroline', 'Melanie', 'Jon'];
const TYPES: MemoryType[] = ['LongTermMemory', 'UserMemory', 'WorkingMemory'];

/** Conversation turns: each answers the previous one (its background), stated on a day, by a speaker. */
function turns(): MemoryInput[] {
  const random = seededRandom(77);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const out: MemoryInput[] = [];
  for (let i = 0; i < 240; i++) {
    const text = `${Array.from({ length: 3 + Math.floor(random() * 8) }, () => pick(WORDS)).join(' ')} ${i}`;
    const speaker = pick(SPEAKERS);
    out.push({
      id: `turn-${i}`,
      text,
      type: TYPES[i % TYPES.length],
      background: i % 4 === 0 ? null : (out[i - 1]?.text ?? null),
      statedAt: i % 5 === 0 ? null : new Date(Date.UTC(2023, 4 + (i % 3), 1 + (i % 27), 10)).toISOString(),
      sources: i % 3 === 0 ? [] : [{ type: 'chat', role: speaker }],
      metadata: i % 7 === 0 ? { speaker: pick(SPEAKERS) } : {},
    });
  }
  return out;
}

const QUERIES = [
  'when did Caroline paint the lake?',
  'Melanie trip to Paris in May 2023',
  'paintings',
  'what did Jon say about the marathon and his sister',
  'adopt a dog from the shelter',
  '花生过敏',
  'собака',
  'camping in the mountains in June',
  'the',
  'quantum chromodynamics',
  '???',
];

async function open(analyzer: 'default' | null): Promise<{ store: SqliteStore; engram: Engram }> {
  const store = createSqliteStore({ path: ':memory:', ...(analyzer === null ? { analyzer: null } : {}) });
  let tick = 0;
  const engram = await Engram.open({
    store,
    embedder: new HashedEmbedder({ dim: 64 }),
    clock: () => new Date(Date.UTC(2024, 0, 1, 0, 0, tick++)),
    trackUsage: false,
  });
  await engram.addMany(turns(), { scope: SCOPE });
  return { store, engram };
}

let analysed: { store: SqliteStore; engram: Engram };
let tokenised: { store: SqliteStore; engram: Engram };

beforeAll(async () => {
  analysed = await open('default');
  tokenised = await open(null);
});

afterAll(async () => {
  await analysed.engram.close();
  await tokenised.engram.close();
});

describe('analysed documents against documents tokenised at read time', () => {
  it('give the same recalls: hits, order, scores and explanations', async () => {
    for (const query of QUERIES) {
      for (const limit of [5, 10]) {
        const a = await analysed.engram.recall(query, { scope: SCOPE, limit, threshold: 0 });
        const b = await tokenised.engram.recall(query, { scope: SCOPE, limit, threshold: 0 });
        expect(a.hits.length + a.cut.length, query).toBeGreaterThan(0);
        expect([...a.hits, ...a.cut], query).toEqual([...b.hits, ...b.cut]);
      }
    }
  });

  it('give the same searches', async () => {
    for (const query of QUERIES) {
      const a = await analysed.engram.search(query, { scope: SCOPE });
      const b = await tokenised.engram.search(query, { scope: SCOPE });
      expect(a.hits.length, query).toBeGreaterThan(0);
      expect(a.hits, query).toEqual(b.hits);
    }
  });

  it('were used: only the store that keeps them answered with documents', async () => {
    const ids = turns().map((t) => t.id as string);
    const options = { context: true, analyzer: CONTEXT_ANALYZER.name };
    const withDocuments = await analysed.store.getTexts(SCOPE.tenant, ids, options);
    expect(withDocuments.filter((t) => t.document !== undefined)).toHaveLength(ids.length);
    const without = await tokenised.store.getTexts(SCOPE.tenant, ids, options);
    expect(without.filter((t) => t.document !== undefined)).toHaveLength(0);
  });
});
