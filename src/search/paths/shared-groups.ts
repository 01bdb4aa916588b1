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
  const lists = splitByType(shared, typeOf, groups);
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

/**
 * The shared hits split into the groups of their types (one pass; a hit whose type no group reads
 * belongs to none), each carrying its last update.
 */
function splitByType(
  shared: readonly ChannelHit[],
  typeOf: (hit: ChannelHit) => HitType | undefined,
  groups: readonly PathGroup[],
): ChannelHit[][] {
  const groupsOf = new Map<MemoryType, number[]>();
  groups.forEach((g, i) => {
    for (const type of new Set(g.types)) {
      const members = groupsOf.get(type);
      if (members === undefined) groupsOf.set(type, [i]);
      else members.push(i);
    }
  });
  const lists = groups.map((): ChannelHit[] => []);
  for (const hit of shared) {
    const known = typeOf(hit);
    const members = known === undefined ? undefined : groupsOf.get(known.type);
    if (known === undefined || members === undefined) continue;
    // The texts told the last update: ranking then finds the hit's document without asking again.
    const entry = hit.updatedAt === undefined ? { ...hit, updatedAt: known.updatedAt } : hit;
    for (const i of members) (lists[i] as ChannelHit[]).push(entry);
  }
  return lists;
}

/**
 * Each hit's type and last update, as a lookup: from the hit itself (SQLite's searches report
 * them) or its row, else from the store's texts; null when the store does not tell them. A hit
 * whose row is gone by now has no text: it belongs to no path.
 */
async function hitTypes(
  store: MemoryStore,
  tenant: string,
  hits: readonly ChannelHit[],
): Promise<((hit: ChannelHit) => HitType | undefined) | null> {
  // The hit (or its memory) is its own answer: no object per hit.
  const own = (hit: ChannelHit): HitType | undefined =>
    hit.memory ?? (hit.type !== undefined && hit.updatedAt !== undefined ? (hit as HitType) : undefined);
  const missing = hits.filter((hit) => own(hit) === undefined).map((hit) => hit.id);
  if (missing.length === 0) return own;
  if (store.getTexts === undefined) return null;
  const read = new Map<string, HitType>();
  for (const text of await store.getTexts(tenant, missing)) {
    if (text.type === undefined) return null;
    read.set(text.id, { type: text.type, updatedAt: text.updatedAt });
  }
  return (hit) => own(hit) ?? read.get(hit.id);
}

/** Scores relative to the best of the shared list, made relative to the best of the path's own. */
function relativeToBest(hits: readonly ChannelHit[]): ChannelHit[] {
  const max = hits.reduce((m, h) => Math.max(m, h.score), 0);
  return max > 0 ? hits.map((h) => ({ ...h, score: h.score / max })) : [...hits];
}
