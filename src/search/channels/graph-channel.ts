import type { Memory } from '../../model/memory.js';
import type { ChannelContext, ChannelHit, SearchChannel } from './search-channel.js';

/** Most tags combined pairwise by the graph channel (C(6,2) = 15 store queries at most). */
export const GRAPH_MAX_TAGS = 6;

/**
 * Graph channel (the multi-path searcher's structural recall): a memory is kept when its `key` is one of the
 * goal's keys (score 1), or when it shares at least 2 tags with the goal (score = shared / goal
 * tags). Uses the store's list filters: one query per key and one per pair of tags (a memory
 * with ≥ 2 shared tags carries at least one such pair), so no store change is needed.
 */
export const graphChannel: SearchChannel = {
  name: 'graph',
  async run(context: ChannelContext): Promise<ChannelHit[]> {
    const { store, filter, goal, limit } = context;
    const keys = [...new Set(goal.keys)];
    const tags = [...new Set(goal.tags)].slice(0, GRAPH_MAX_TAGS);
    const queries: Array<Promise<Memory[]>> = [];
    for (const key of keys) queries.push(store.list({ ...filter, key }, { limit }).then((p) => p.items));
    for (let i = 0; i < tags.length; i++) {
      for (let j = i + 1; j < tags.length; j++) {
        queries.push(store.list({ ...filter, tags: [tags[i] as string, tags[j] as string] }, { limit }).then((p) => p.items));
      }
    }
    if (queries.length === 0) return [];
    const keySet = new Set(keys);
    const tagSet = new Set(goal.tags);
    const out = new Map<string, ChannelHit>();
    for (const memories of await Promise.all(queries)) {
      for (const memory of memories) {
        if (out.has(memory.id)) continue;
        const overlap = memory.tags.filter((t) => tagSet.has(t)).length;
        const keyHit = memory.key !== null && keySet.has(memory.key);
        if (!keyHit && overlap < 2) continue;
        out.set(memory.id, { id: memory.id, score: keyHit ? 1 : overlap / Math.max(1, tagSet.size), memory });
      }
    }
    return [...out.values()];
  },
};
