import type { Memory } from '../../model/memory.js';
import type { MemoryStore } from '../../store/memory-store.js';
import type { MergedCandidate } from '../channels/run-channels.js';
import { maxCosine } from '../../vector/max-cosine.js';
import type { FoundMemory } from './rank-candidates.js';

/**
 * Completes what the channels found for ranking: loads the memories no channel returned and the
 * vectors of those the dense channel did not score (their cosine is the best over the query
 * vectors), and drops any that are gone or no longer activated.
 */
export async function loadCandidateRows(
  store: MemoryStore,
  tenant: string,
  entries: readonly MergedCandidate[],
  queryVectors: readonly Float32Array[],
): Promise<FoundMemory[]> {
  const missing = entries.filter((e) => !e.memory).map((e) => e.id);
  if (missing.length > 0) {
    const loaded = new Map((await store.get(tenant, missing)).map((m) => [m.id, m]));
    for (const e of entries) if (!e.memory) e.memory = loaded.get(e.id);
  }
  const needVectors = entries.filter((e) => e.channels.dense === undefined).map((e) => e.id);
  const vectors =
    needVectors.length > 0 ? await store.getVectors(tenant, needVectors) : new Map<string, Float32Array>();
  return entries
    .filter((e): e is MergedCandidate & { memory: Memory } => e.memory !== undefined && e.memory.status === 'activated')
    .map((e) => {
      const vector = vectors.get(e.id);
      const cos = e.channels.dense ?? (vector ? maxCosine(vector, queryVectors) : 0);
      return { memory: e.memory, channels: e.channels, cosine: cos };
    });
}
