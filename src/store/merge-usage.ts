import type { UsageEntry } from './memory-store.js';

/**
 * One entry per id, in first-seen order: counts add up and the latest last-used time wins (ISO-8601
 * UTC strings compare in time order; null never wins over a time).
 */
export function mergeUsage(usage: readonly UsageEntry[]): UsageEntry[] {
  const byId = new Map<string, UsageEntry>();
  for (const entry of usage) {
    const seen = byId.get(entry.id);
    if (seen === undefined) {
      byId.set(entry.id, { ...entry });
      continue;
    }
    seen.count += entry.count;
    if (entry.lastUsedAt !== null && (seen.lastUsedAt === null || entry.lastUsedAt > seen.lastUsedAt)) {
      seen.lastUsedAt = entry.lastUsedAt;
    }
  }
  return [...byId.values()];
}
