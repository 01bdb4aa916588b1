import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import { parseLocomo } from '../../src/import/locomo.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import type { Embedder } from '../../src/embed/embedder.js';

/** Every text gets the same vector: the cosine carries no information, so the ranking is the words'. */
const flat: Embedder = {
  model: 'flat-4',
  dim: 4,
  embed: async (texts) => texts.map(() => Float32Array.from([0.5, 0.5, 0.5, 0.5])),
};

const [conversation] = parseLocomo([
  {
    sample_id: 'c1',
    conversation: {
      speaker_a: 'Ana',
      speaker_b: 'Bo',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Bo', dia_id: 'D1:1', text: 'Ana, did you see the aurora from the cabin?' },
        { speaker: 'Ana', dia_id: 'D1:2', text: 'Yes, last week! It was green and huge.' },
        { speaker: 'Bo', dia_id: 'D1:3', text: 'I fly kites with my nephew on Sundays.' },
        { speaker: 'Ana', dia_id: 'D1:4', text: 'Kites are fun, I should try one.' },
      ],
      session_2_date_time: '10:00 am on 2 June, 2023',
      session_2: [
        { speaker: 'Ana', dia_id: 'D2:1', text: 'The cabin trip was lovely.' },
        { speaker: 'Bo', dia_id: 'D2:2', text: 'We should plan another one soon.' },
      ],
    },
  },
]);

let store: MemoryStore;
let engram: Engram;
const scope = { tenant: 't', user: 'c1' };
const keys = (hits: Array<{ memory: { key: string | null } }>): Array<string | null> => hits.map((h) => h.memory.key);

beforeEach(async () => {
  store = createSqliteStore({ path: ':memory:' });
  engram = await Engram.open({ store, embedder: flat, trackUsage: false, ownResources: false });
  await engram.addMany(conversation!.memories, { scope });
});

afterEach(async () => {
  await engram.close();
  await store.close();
});

describe('the default recall on a conversation', () => {
  it('finds a reply through the turn it answers, below the turn that says the words itself', async () => {
    const result = await engram.recall('the aurora seen from a cabin', { scope, limit: 3, threshold: -1 });
    expect(keys(result.hits).slice(0, 2)).toEqual(['D1:1', 'D1:2']);
    const seed = await engram.recall('the aurora seen from a cabin', {
      scope,
      limit: 6,
      threshold: -1,
      profile: 'seed',
    });
    // The reference ranks by the text alone: the reply has none of the words, so it ranks below both turns that do.
    expect(seed.hits.find((h) => h.memory.key === 'D1:2')?.explanation.bm25).toBe(0);
    expect(keys(seed.hits).slice(0, 2).sort()).toEqual(['D1:1', 'D2:1']);
  });

  it('ranks the named speaker’s own turns first: a question about Ana prefers what Ana said', async () => {
    const result = await engram.recall('did Ana see the aurora', { scope, limit: 2, threshold: -1 });
    expect(keys(result.hits)).toEqual(['D1:2', 'D1:1']);
  });

  it('ranks the named speaker’s own turn above another speaker’s turn with the same word', async () => {
    const result = await engram.recall('what does Bo do with kites', { scope, limit: 2, threshold: -1 });
    expect(keys(result.hits)).toEqual(['D1:3', 'D1:4']);
    expect(result.hits[0]?.explanation.extra).toMatchObject({ speaker: 1 });
    expect(result.hits[1]?.explanation.extra).toMatchObject({ speaker: 0 });
    const { denseWeight, lexicalWeight } = result.hits[0]!.explanation;
    const speakerWeight = result.hits[0]!.explanation.extra?.['speakerWeight'] as number;
    expect(denseWeight + lexicalWeight + speakerWeight).toBeCloseTo(1, 12);
  });

  it('matches the day a memory was stated', async () => {
    const result = await engram.recall('what happened in June 2023', { scope, limit: 2, threshold: -1 });
    expect(keys(result.hits).sort()).toEqual(['D2:1', 'D2:2']);
  });

  it('gives the fast search the same order and scores', async () => {
    const query = 'did Ana see the aurora';
    const recall = await engram.recall(query, { scope, limit: 4, threshold: -1 });
    const search = await engram.search(query, { scope, topK: 4, types: ['LongTermMemory'] });
    expect(keys(search.hits)).toEqual(keys(recall.hits));
    search.hits.forEach((h, i) => expect(h.explanation.fused).toBeCloseTo(recall.hits[i]!.score, 12));
  });
});
