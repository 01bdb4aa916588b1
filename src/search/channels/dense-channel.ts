import type { DenseCandidate, MemoryFilter } from '../../store/memory-store.js';
import type { ChannelContext, ChannelHit, SearchChannel } from './search-channel.js';

/**
 * Dense channel: one `denseSearch` per query vector, plus — when a priority scope is set — the
 * same searches restricted to it (seed 003 vector recall path B). All passes run in parallel and
 * are merged by id keeping the maximum cosine; `extra['dense.priority']` marks priority finds.
 */
export const denseChannel: SearchChannel = {
  name: 'dense',
  async run(context: ChannelContext): Promise<ChannelHit[]> {
    const { store, filter, model, limit } = context;
    const passes: Array<Promise<{ rows: DenseCandidate[]; priority: boolean }>> = [];
    const priorityFilter: MemoryFilter | undefined =
      context.priority && Object.values(context.priority).some((v) => v !== undefined)
        ? { ...filter, scope: { ...filter.scope, ...context.priority } }
        : undefined;
    for (const vector of context.queryVectors) {
      passes.push(store.denseSearch({ filter, vector, model, limit }).then((rows) => ({ rows, priority: false })));
      if (priorityFilter) {
        passes.push(store.denseSearch({ filter: priorityFilter, vector, model, limit }).then((rows) => ({ rows, priority: true })));
      }
    }
    const merged = new Map<string, ChannelHit>();
    for (const { rows, priority } of await Promise.all(passes)) {
      for (const row of rows) {
        const seen = merged.get(row.id);
        if (!seen) merged.set(row.id, { id: row.id, score: row.cosine, extra: priority ? { 'dense.priority': row.cosine } : undefined });
        else {
          seen.score = Math.max(seen.score, row.cosine);
          if (priority) seen.extra = { 'dense.priority': Math.max(seen.extra?.['dense.priority'] ?? -1, row.cosine) };
        }
      }
    }
    return [...merged.values()];
  },
};
