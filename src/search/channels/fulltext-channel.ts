import type { SearchGroup } from '../../store/memory-store.js';
import { lexicalSearchGroups } from './grouped-search.js';
import type { ChannelContext, ChannelHit, SearchChannel } from './search-channel.js';
import { normalizeLexical } from './normalize-lexical.js';
import { searchSpace } from './search-space.js';

/**
 * Full-text channel: the 1–3 weighted keyword terms of the query (English scoring, jieba for
 * Chinese) against the store's full-text index. Terms are plain words; the store escapes them for
 * FTS5 / tsquery, so user text is never query syntax.
 */
export const fulltextChannel: SearchChannel = {
  name: 'fulltext',
  relativeScores: true,
  async run(context: ChannelContext): Promise<ChannelHit[]> {
    if (context.keywordTerms.length === 0) return [];
    return normalizeLexical(
      await context.store.lexicalSearch({
        filter: context.filter,
        terms: context.keywordTerms,
        limit: context.limit,
        space: searchSpace(context),
      }),
    );
  },
  async runGroups(context: ChannelContext, groups: SearchGroup[]): Promise<ChannelHit[][]> {
    if (context.keywordTerms.length === 0) return groups.map(() => []);
    const { store, filter, keywordTerms: terms } = context;
    return (await lexicalSearchGroups(store, { filter, terms, groups, space: searchSpace(context) })).map(
      normalizeLexical,
    );
  },
};
