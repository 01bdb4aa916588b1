import type { ChannelContext, ChannelHit, SearchChannel } from './search-channel.js';

/** Most working-memory items read per search. @default 1000 */
export const WORKING_MEMORY_CAP = 1_000;

/**
 * Working-memory channel: every activated item of the scope (newest first, capped), no
 * retrieval ranking — working memory is small and fresh, so it is taken whole and the path trims it.
 */
export const workingChannel: SearchChannel = {
  name: 'working',
  async run(context: ChannelContext): Promise<ChannelHit[]> {
    const page = await context.store.list(
      { ...context.filter, statuses: ['activated'] },
      { limit: WORKING_MEMORY_CAP, order: 'updatedAt', direction: 'desc' },
    );
    return page.items.map((memory) => ({ id: memory.id, score: 1, memory }));
  },
};
