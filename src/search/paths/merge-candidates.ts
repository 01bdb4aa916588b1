import type { SearchCandidate } from './search-candidate.js';

/**
 * Merges candidates found by several paths (or stages): union of paths and channels, best score kept.
 * A candidate found once is returned as it came; one found again is merged into a copy, so no
 * input is changed.
 */
export function mergeCandidates(lists: Iterable<readonly SearchCandidate[]>): SearchCandidate[] {
  const byKey = new Map<string, SearchCandidate>();
  const copies = new Set<SearchCandidate>();
  for (const list of lists) {
    for (const c of list) {
      const key = `${c.collection ?? ''}\u0000${c.memory.id}`;
      let seen = byKey.get(key);
      if (!seen) {
        byKey.set(key, c);
        continue;
      }
      if (!copies.has(seen)) {
        seen = { ...seen, paths: new Set(seen.paths), channels: { ...seen.channels } };
        copies.add(seen);
        byKey.set(key, seen);
      }
      for (const p of c.paths) seen.paths.add(p);
      for (const [k, v] of Object.entries(c.channels)) seen.channels[k] = Math.max(seen.channels[k] ?? -Infinity, v);
      if (c.score > seen.score) {
        const { paths, channels } = seen;
        Object.assign(seen, c, { paths, channels });
      }
    }
  }
  return [...byKey.values()];
}
