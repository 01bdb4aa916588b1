import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Embedder } from '../../src/embed/embedder.js';
import { Engram, type EngramOptions } from '../../src/engram.js';
import type { LocomoConversation } from '../../src/import/locomo.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { LOCOMO_TENANT } from './locomo-eval.js';

/** The real facade over a fresh SQLite file holding every conversation (one scope each). */
export interface LocomoFacade {
  engram: Engram;
  store: MemoryStore;
  close(): Promise<void>;
}

/**
 * Opens `Engram.open` over a fresh SQLite file and adds each conversation's turns in its own scope
 * (tenant `bench`, user = sample_id). The embedder belongs to the caller (it is not closed).
 */
export async function openLocomoFacade(
  embedder: Embedder,
  conversations: readonly LocomoConversation[],
  options: Partial<Pick<EngramOptions, 'recall'>> = {},
): Promise<LocomoFacade> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-quality-'));
  const store = createSqliteStore({ path: join(dir, 'quality.db') });
  const engram = await Engram.open({ store, embedder, trackUsage: false, ownResources: false, ...options });
  for (const conv of conversations) {
    await engram.addMany(conv.memories, { scope: { tenant: LOCOMO_TENANT, user: conv.sampleId } });
  }
  return {
    engram,
    store,
    async close() {
      await engram.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
