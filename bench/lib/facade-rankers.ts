import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { RecallProfile } from '../../src/model/api.js';
import type { Embedder } from '../../src/embed/embedder.js';
import type { Engram } from '../../src/engram.js';
import type { LocomoConversation } from '../../src/import/locomo.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import type { RankerFactory } from './quality-rankers.js';

const TENANT = 'bench';

interface Shared {
  engram: Engram;
  store: MemoryStore;
  dir: string;
  loaded: Set<string>;
}

/**
 * The `seed` and `engram` rows: the real facade (`Engram.open` over a fresh SQLite file),
 * one scope per conversation (user = sample_id), recall with `limit = k` and threshold 0.
 * Query vectors come from the same (cached) embedder and are passed in, so `ms/q` excludes
 * query embedding. Both profiles share one store.
 */
export function facadeRankers(embedder: Embedder): Record<RecallProfile, RankerFactory> {
  let shared: Promise<Shared> | null = null;
  const open = async (): Promise<Shared> => {
    const [{ Engram }, { createSqliteStore }] = await Promise.all([
      import('../../src/engram.js'),
      import('../../src/store/sqlite/index.js'),
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'engram-quality-'));
    const store = createSqliteStore({ path: join(dir, 'quality.db') });
    // The embedder belongs to the caller; the store is closed in close().
    const engram = await Engram.open({ store, embedder, trackUsage: false, ownResources: false });
    return { engram, store, dir, loaded: new Set() };
  };
  const factory = (profile: RecallProfile, description: string): RankerFactory => ({
    description,
    perK: true,
    async open(conv: LocomoConversation) {
      shared ??= open();
      const { engram, loaded } = await shared;
      const scope = { tenant: TENANT, user: conv.sampleId };
      if (!loaded.has(conv.sampleId)) {
        loaded.add(conv.sampleId);
        await engram.addMany(conv.memories, { scope });
      }
      return {
        async rank(query, k) {
          const [vector] = await embedder.embed([query]);
          const result = await engram.recall(query, { scope, limit: k, threshold: 0, profile, vector });
          return result.hits.map((h) => h.memory.key ?? '');
        },
      };
    },
    async close() {
      if (shared === null) return;
      const { engram, store, dir } = await shared;
      shared = null;
      await engram.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  return {
    seed: factory('seed', 'seed-000 fusion, exact (facade profile "seed")'),
    engram: factory('engram', 'Engram default (facade profile "engram")'),
  };
}
