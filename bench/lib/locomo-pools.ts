import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Embedder } from '../../src/embed/embedder.js';
import { Engram } from '../../src/engram.js';
import type { EvalCase } from '../../src/eval/eval-case.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { LOCOMO_TENANT, locomoCases, sampleOf } from './locomo-eval.js';
import type { LocomoBenchConversation } from './locomo-questions.js';
import { buildPools, type PooledCase } from './ranking-pools.js';
import { loadIndirectCases } from './ranking-score.js';

/** The cut-offs the pool benches score LoCoMo questions at. */
export const LOCOMO_KS = [5, 10, 20];
/** The cut-offs the pool benches score the indirect cases at. */
export const INDIRECT_KS = [1, 3, 5, 10];

/** LoCoMo dev and the hand-written indirect cases, stored for the pool benches (see {@link openLocomoStore}). */
export interface LocomoStore {
  store: MemoryStore;
  engram: Engram;
  indirectCases: EvalCase[];
  /** Closes the Engram, the store and the embedder, and removes the temp folder. */
  close(): Promise<void>;
}

/**
 * A new SQLite file in a temp folder (`prefix`, `file`) holding every conversation's memories in
 * its own user of {@link LOCOMO_TENANT}, then the indirect cases (bench/cases), embedded with
 * `embedder` through the facade (no usage tracking; `env` as {@link Engram.open} reads it).
 */
export async function openLocomoStore(
  prefix: string,
  file: string,
  embedder: Embedder,
  conversations: readonly LocomoBenchConversation[],
  env?: Record<string, string | undefined>,
): Promise<LocomoStore> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = createSqliteStore({ path: join(dir, file) });
  const engram = await Engram.open({ store, embedder, trackUsage: false, ownResources: false, env });
  const close = async () => {
    await engram.close();
    await store.close();
    await embedder.close?.();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const c of conversations)
      await engram.addMany(c.memories, { scope: { tenant: LOCOMO_TENANT, user: c.sampleId } });
    return { store, engram, indirectCases: await loadIndirectCases(engram, LOCOMO_TENANT), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The default recall's candidate pools at each cut-off: the LoCoMo questions (grouped by
 * conversation) at `locomoKs`, the indirect cases (one group) at `indirectKs`.
 */
export async function locomoPools(
  { store, indirectCases }: Pick<LocomoStore, 'store' | 'indirectCases'>,
  embedder: Embedder,
  conversations: readonly LocomoBenchConversation[],
  ks: { locomo: readonly number[]; indirect: readonly number[] },
): Promise<{ locomo: PooledCase[]; indirect: PooledCase[] }> {
  const locomo = await buildPools(store, embedder, conversations.flatMap(locomoCases), {
    tenant: LOCOMO_TENANT,
    ks: ks.locomo,
    groupOf: (c) => sampleOf(c.id ?? ''),
  });
  const indirect = await buildPools(store, embedder, indirectCases, {
    tenant: LOCOMO_TENANT,
    ks: ks.indirect,
    groupOf: () => 'indirect',
  });
  return { locomo, indirect };
}
