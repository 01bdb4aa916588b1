import type { MemoryStore, UsageEntry } from './memory-store.js';

/**
 * Adds usage through {@link MemoryStore.recordUsage} alone (for a store without `addUsage` or
 * `setUsage`): ids used at the same time go together, once per use. A count without a time
 * cannot be replayed and is skipped.
 */
export async function replayUsage(store: MemoryStore, tenant: string, usage: readonly UsageEntry[]): Promise<void> {
  const byTime = new Map<string, UsageEntry[]>();
  for (const entry of usage) {
    if (entry.lastUsedAt === null) continue;
    const group = byTime.get(entry.lastUsedAt) ?? [];
    group.push(entry);
    byTime.set(entry.lastUsedAt, group);
  }
  for (const [at, group] of byTime) {
    const max = Math.max(...group.map((g) => g.count));
    for (let k = 1; k <= max; k++) {
      await store.recordUsage(
        tenant,
        group.filter((g) => g.count >= k).map((g) => g.id),
        at,
      );
    }
  }
}
