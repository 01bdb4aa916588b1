import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUCKET_LIMITS } from '../../src/model/bucket-limits.js';
import type { MemoryType } from '../../src/model/memory-type.js';
import { MEMORY_TYPES } from '../../src/model/memory-type.js';
import type { PathName } from '../../src/model/path-name.js';
import type { Scope } from '../../src/model/scope.js';
import { DEFAULT_LEXICAL_WEIGHTS } from '../../src/recall/lexical-weights.js';
import { ENGRAM_PROFILE, SEED_PROFILE } from '../../src/recall/recall-profile.js';
import { TokenCache } from '../../src/recall/token-cache.js';
import { extractKeywordTerms } from '../../src/search/channels/keyword-terms.js';
import { retrieveStage } from '../../src/search/paths/retrieve-stage.js';
import type { SearchCandidate } from '../../src/search/paths/search-candidate.js';
import { selectPaths } from '../../src/search/paths/search-paths.js';
import type { StageContext, StageQuery } from '../../src/search/paths/stage-context.js';
import { createCosineLocalReranker } from '../../src/search/rank/cosine-local-reranker.js';
import { createHttpReranker } from '../../src/search/rank/http-reranker.js';
import { noopReranker } from '../../src/search/rank/noop-reranker.js';
import type { Reranker } from '../../src/search/rank/reranker.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';
import {
  KEYS,
  MODEL,
  TAGS,
  centres,
  picker,
  randomRecords,
  randomText,
  randomVector,
  seeded,
} from './support/random-corpus.js';
import { referenceRetrieveStage } from './support/reference-stage.js';

let rerankServer: LocalHttpServer;
beforeAll(async () => {
  // A cross-encoder stand-in speaking the BGE wire format: scores by shared words.
  rerankServer = await startLocalServer((req) => {
    const body = req.body as { query: string; documents: string[] };
    const q = new Set(body.query.split(' '));
    const results = body.documents.map((d, index) => ({
      index,
      relevance_score: d.split(' ').filter((w) => q.has(w)).length / 10,
    }));
    return { json: { results } };
  });
});
afterAll(() => rerankServer.close());

/** A reranker of our own whose order has nothing to do with the fusion (by text, then id). */
const byText: Reranker = {
  name: 'by-text',
  async rerank(request) {
    return request.candidates
      .map((c, index) => ({ index, key: `${c.memory.text}\u0000${c.memory.id}` }))
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .slice(0, request.topK)
      .map(({ index }, rank) => ({ index, score: 1 / (rank + 1) }));
  },
};

type StoreKind = 'cache' | 'fallback' | 'no-cache' | 'int8';

function storeOf(kind: StoreKind): SqliteStore {
  if (kind === 'no-cache') return createSqliteStore({ path: ':memory:', vectorCache: false });
  return createSqliteStore({ path: ':memory:', vectorQuantizeAbove: kind === 'int8' ? 32 : undefined });
}

/** The same store without the optional methods: the searcher's fallbacks (one call per group, `get` for texts). */
function withoutOptional(store: MemoryStore): MemoryStore {
  const hidden = new Set(['denseSearchGroups', 'lexicalSearchGroups', 'getTexts']);
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && hidden.has(prop)) return undefined;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Every field of every candidate, in order. */
function project(list: readonly SearchCandidate[]): unknown[] {
  return list.map((c) => ({ ...c, paths: [...c.paths].sort() }));
}

interface Case {
  context: Omit<StageContext, 'pathTimings' | 'channelTimings' | 'degraded' | 'tokens'>;
  query: StageQuery;
}

function randomCase(
  rand: () => number,
  store: MemoryStore,
  dim: number,
  stored: readonly Float32Array[],
  topics: readonly Float32Array[],
): Case {
  const { int, pick, some, chance } = picker(rand);
  const scope: Scope = {
    tenant: 't',
    ...(chance(0.85) ? { user: 'u1' } : {}),
    ...(chance(0.15) ? { session: 's1' } : {}),
  };
  const collections = pick<Array<string | null>>([[null], [null], ['ca'], ['ca', 'cb']]);
  const types = chance(0.3) ? some<MemoryType>(MEMORY_TYPES, 0.5) : undefined;
  const named = chance(0.3)
    ? some<PathName>(['working', 'long-term', 'user', 'keyword', 'tool', 'skill', 'preference'], 0.6)
    : undefined;
  const topK = pick([1, 2, 3, 5, 10]);
  const limits = chance(0.5)
    ? { ...DEFAULT_BUCKET_LIMITS, topK }
    : {
        topK,
        toolSchemaTopK: 1 + int(6),
        toolTrajectoryTopK: 1 + int(6),
        skillTopK: 1 + int(4),
        preferenceTopK: 1 + int(6),
      };
  const texts = Array.from({ length: chance(0.3) ? 1 + int(3) : 1 }, () => randomText(rand, 1, 6));
  const vectors = texts.map(() => (chance(0.3) ? (pick(stored) as Float32Array) : randomVector(rand, dim, topics)));
  const graph = chance(0.3);
  const reranker = pick<Reranker>([
    noopReranker,
    noopReranker,
    createCosineLocalReranker({ levelWeights: { topic: 2, concept: 1, fact: 0.5 } }),
    byText,
    createHttpReranker({ url: rerankServer.url, strategy: pick(['memory', 'background'] as const) }),
  ]);
  return {
    context: {
      store,
      model: MODEL,
      scope,
      collections,
      paths: selectPaths(types, named),
      web: null,
      topK,
      limits,
      profile: chance(0.8) ? ENGRAM_PROFILE : SEED_PROFILE,
      weights: DEFAULT_LEXICAL_WEIGHTS,
      reranker,
      fulltext: chance(0.3),
      priority: chance(0.4) ? pick([{ session: 's1' }, { agent: 'a1' }, { session: 's2', agent: 'a2' }]) : undefined,
      boost: chance(0.3) ? { userId: 'u1', sessionId: 's1', tags: some(TAGS, 0.3) } : undefined,
      sequential: chance(0.2),
      storeInOrder: chance(0.5),
      now: () => 0,
    },
    query: {
      goal: {
        keys: graph ? some(KEYS, 0.5) : [],
        tags: graph ? some(TAGS, 0.5) : [],
        rephrasedQuery: texts[0] as string,
        memories: texts,
        internetSearch: false,
        goalType: 'default',
        context: '',
      },
      queryTexts: texts,
      queryVectors: vectors,
      keywordTerms: extractKeywordTerms(texts[0] as string),
    },
  };
}

describe('the shared retrieval stage equals the per-path searcher', () => {
  it.each<[StoreKind, number]>([
    ['cache', 1],
    ['cache', 2],
    ['fallback', 3],
    ['no-cache', 4],
    ['int8', 5],
    ['cache', 6],
    ['fallback', 7],
    ['int8', 8],
  ])(
    'on random corpora across types, modes, collections, priority passes and rerankers (%s store, seed %i)',
    async (kind, seed) => {
      const rand = seeded(seed);
      const { pick } = picker(rand);
      const dim = pick([8, 16, 24]);
      const topics = centres(rand, dim);
      const sqlite = storeOf(kind);
      const store = kind === 'fallback' ? withoutOptional(sqlite) : sqlite;
      try {
        let compared = 0;
        for (const size of [40, 400]) {
          await sqlite.delete(
            't',
            (
              await sqlite.list({ scope: { tenant: 't' }, statuses: ['activated', 'archived'] }, { limit: 1000 })
            ).items.map((m) => m.id),
          );
          const records = randomRecords(rand, size, dim, topics);
          await sqlite.insert(records);
          const stored = records.flatMap((r) => (r.vector ? [r.vector] : []));
          const cache = new TokenCache();
          for (let q = 0; q < 12; q++) {
            const { context, query } = randomCase(rand, store, dim, stored, topics);
            const fresh = (): StageContext => ({ ...context, pathTimings: {}, channelTimings: {}, degraded: {} });
            const expected = await referenceRetrieveStage(fresh(), query, 0);
            const shared = { ...fresh(), tokens: rand() < 0.7 ? cache.view(context.profile.name, 't') : undefined };
            const actual = await retrieveStage(shared, query, 0);
            expect(project(actual)).toEqual(project(expected));
            expect(shared.degraded).toEqual({});
            compared += expected.length;
          }
        }
        // The comparison is not vacuous: the searches found something.
        expect(compared).toBeGreaterThan(50);
      } finally {
        await sqlite.close();
      }
    },
  );
});
