import type { MemoryType } from '../../model/memory-type.js';
import type { MemoryStore, SearchGroup } from '../../store/memory-store.js';
import type { ChannelContext, ChannelHit, SearchChannel } from '../channels/search-channel.js';

/** One path's share of a grouped channel. */
export interface PathGroup extends SearchGroup {
  /** Hits the path keeps at least when the scope has them (its bucket's k). */
  floor: number;
}

/**
 * A grouped channel for several paths of one scope from one shared search, split by type: the
 * paths' types together, at the largest pool any of them asks for, each hit going to the paths
 * of its type. A scope is thus searched once per channel whatever the number of paths, and every
 * path's candidates are the shared pool's members of its types — the core recall's pool, split.
 *
 * A path the split leaves with fewer than its `floor` hits, while the shared list was full (so
 * the scope may hold more of its types), gets its own best `floor` instead: one more grouped call
 * for those paths only (a small type's rows are few, so it is cheap), so that a rare type is never
 * crowded out of its bucket. Those rows include every shared hit of its types, which rank first
 * among them.
 *
 * Types come with a hit (SQLite's searches report them) or its row, else from the store's texts.
 * A store that reports none gets one search per path, as without sharing. With one path this is
 * that path's own search, exactly.
 */
export async function runSharedGroups(
  channel: SearchChannel & Required<Pick<SearchChannel, 'runGroups'>>,
  context: ChannelContext,
  groups: readonly PathGroup[],
): Promise<ChannelHit[][]> {
  const alone = (): Promise<ChannelHit[][]> =>
    channel.runGroups(
      context,
      groups.map((g) => ({ types: g.types, limit: g.limit })),
    );
  if (groups.length <= 1) return alone();
  const types = [...new Set(groups.flatMap((g) => g.types))];
  const limit = Math.max(...groups.map((g) => g.limit));
  const [shared = []] = await channel.runGroups(context, [{ types, limit }]);
  const typeOf = await hitTypes(context.store, context.filter.scope.tenant, shared);
  if (typeOf === null) return alone();
  const lists = groups.map((g) => {
    const own = new Set<MemoryType>(g.types);
    const list: ChannelHit[] = [];
    for (const hit of shared) {
      const known = typeOf.get(hit.id);
      if (known === undefined || !own.has(known.type)) continue;
      // The texts told the last update: ranking then finds the hit's document without asking again.
      list.push(hit.updatedAt === undefined ? { ...hit, updatedAt: known.updatedAt } : hit);
    }
    return list;
  });
  // A list shorter than its limit holds every row the channel finds in these types.
  const short = shared.length < limit ? [] : groups.flatMap((g, i) => ((lists[i]?.length ?? 0) < g.floor ? [i] : []));
  if (short.length > 0) {
    const floors = await channel.runGroups(
      context,
      short.map((i) => ({ types: (groups[i] as PathGroup).types, limit: (groups[i] as PathGroup).floor })),
    );
    short.forEach((i, j) => (lists[i] = floors[j] ?? []));
  }
  return channel.relativeScores ? lists.map((list, i) => (short.includes(i) ? list : relativeToBest(list))) : lists;
}

/** A hit's type and last update. */
interface HitType {
  type: MemoryType;
  updatedAt: string;
}

/** The types of the hits (from their rows, else the store's texts); null when the store does not tell them. */
async function hitTypes(
  store: MemoryStore,
  tenant: string,
  hits: readonly ChannelHit[],
): Promise<Map<string, HitType> | null> {
  const out = new Map<string, HitType>();
  const missing: string[] = [];
  for (const hit of hits) {
    if (hit.memory !== undefined) out.set(hit.id, { type: hit.memory.type, updatedAt: hit.memory.updatedAt });
    else if (hit.type !== undefined && hit.updatedAt !== undefined)
      out.set(hit.id, { type: hit.type, updatedAt: hit.updatedAt });
    else missing.push(hit.id);
  }
  if (missing.length === 0) return out;
  if (store.getTexts === undefined) return null;
  // A hit whose row is gone by now has no text: it belongs to no path.
  for (const text of await store.getTexts(tenant, missing)) {
    if (text.type === undefined) return null;
    out.set(text.id, { type: text.type, updatedAt: text.updatedAt });
  }
  return out;
}

/** Scores relative to the best of the shared list, made relative to the best of the path's own. */
function relativeToBest(hits: readonly ChannelHit[]): ChannelHit[] {
  const max = hits.reduce((m, h) => Math.max(m, h.score), 0);
  return max > 0 ? hits.map((h) => ({ ...h, score: h.score / max })) : [...hits];
}
