import type { ChannelContext, ChannelHit, SearchChannel } from './search-channel.js';
import { searchSpace } from './search-space.js';

/**
 * Working-memory channel (the multi-path searcher's path A): the scope's activated working memory
 * taken whole, no retrieval ranking, trimmed — here to the newest `limit` items (the path's candidate pool, ≥ 50),
 * which are then ranked by the path like any candidates. Working memory is small and fresh by
 * design; reading only the newest items keeps a large one from dominating search latency.
 */
export const workingChannel: SearchChannel = {
  name: 'working',
  async run(context: ChannelContext): Promise<ChannelHit[]> {
    const { store } = context;
    const filter = { ...context.filter, statuses: ['activated' as const] };
    // Ids alone when the store can (with their documents and cosines where it keeps them): the
    // path ranks them from those or their texts, and reads only its best rows.
    if (store.newestIds) {
      const scored = context.queryVectors.length > 0;
      const newest = await store.newestIds(filter, context.limit, {
        analyzer: context.analyzer,
        storedCosinesWith: scored ? context.queryVectors : undefined,
        space: scored ? searchSpace(context) : undefined,
      });
      return newest.map(({ id, updatedAt, document, storedCosine }) => ({
        id,
        score: 1,
        updatedAt,
        document,
        storedCosine,
      }));
    }
    const page = await store.list(filter, { limit: context.limit, order: 'updatedAt', direction: 'desc' });
    return page.items.map((memory) => ({ id: memory.id, score: 1, memory }));
  },
};
