import type { LexicalQuery, SearchGroup } from '../../store/memory-store.js';
import { lexicalSearchGroups } from './grouped-search.js';
import type { ChannelContext, ChannelHit, SearchChannel } from './search-channel.js';
import { normalizeLexical } from './normalize-lexical.js';
import { searchSpace } from './search-space.js';

/** Every token of every query text, once. */
function queryTerms(context: ChannelContext): string[] {
  return [...new Set(context.queryTexts.flatMap((t) => context.tokenize(t)))];
}

/**
 * What the channel asks beside the terms: rows of the query vectors' space, with their documents,
 * and each row's cosines with the query vectors as `storedCosines` gives them (the fusion needs
 * them for rows no dense channel scored; a store answering from memory saves that second pass).
 */
function extras(context: ChannelContext): Pick<LexicalQuery, 'space' | 'analyzer' | 'storedCosinesWith'> {
  const space = searchSpace(context);
  return { space, analyzer: context.analyzer, storedCosinesWith: space ? context.queryVectors : undefined };
}

/**
 * BM25 channel: every token of every query text against the store's corpus index, so lexical
 * matches outside the dense pool enter the candidate set; the final BM25 is computed over the
 * merged pool by the fusion. Channel score = index score / best index score (of the path).
 */
export const bm25Channel: SearchChannel = {
  name: 'bm25',
  relativeScores: true,
  async run(context: ChannelContext): Promise<ChannelHit[]> {
    const terms = queryTerms(context);
    if (terms.length === 0) return [];
    return normalizeLexical(
      await context.store.lexicalSearch({
        filter: context.filter,
        terms,
        limit: context.limit,
        ...extras(context),
      }),
    );
  },
  async runGroups(context: ChannelContext, groups: SearchGroup[]): Promise<ChannelHit[][]> {
    const terms = queryTerms(context);
    if (terms.length === 0) return groups.map(() => []);
    const lists = await lexicalSearchGroups(context.store, {
      filter: context.filter,
      terms,
      groups,
      ...extras(context),
    });
    return lists.map(normalizeLexical);
  },
};
