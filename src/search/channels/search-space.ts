import type { EmbeddingInfo } from '../../model/memory.js';
import type { ChannelContext } from './search-channel.js';

/**
 * The embedding space of a search's query vectors: lexical channels ask for rows of that space
 * only (the rows the other channels and the fusion can score), which lets a store answer from
 * its vector cache. Undefined when the search has no query vector.
 */
export function searchSpace(context: ChannelContext): EmbeddingInfo | undefined {
  const dim = context.queryVectors[0]?.length ?? 0;
  return dim > 0 ? { model: context.model, dim } : undefined;
}
