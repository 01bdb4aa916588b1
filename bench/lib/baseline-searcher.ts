import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Embedder } from '../../src/embed/embedder.js';
import type { SearchOptions } from '../../src/model/search-options.js';
import type { SearchResult } from '../../src/model/search-result.js';
import type { LexicalWeights } from '../../src/recall/lexical-weights.js';
import { ENGRAM_PROFILE } from '../../src/recall/recall-profile.js';
import type { MemoryStore } from '../../src/store/memory-store.js';

/** One search, as `Engram.search` and the `Searcher` take it. */
export type SearchFn = (query: string, options: SearchOptions) => Promise<SearchResult>;

/**
 * The `Searcher` of another checkout (`dir`, e.g. `git worktree add /tmp/base main~1`) over this
 * store and embedder, with the weights the facade gives its own searcher (the default profile's,
 * with the environment's overrides): the benches run it beside this checkout's search.
 */
export async function baselineSearch(dir: string, store: MemoryStore, embedder: Embedder): Promise<SearchFn> {
  const url = pathToFileURL(resolve(dir, 'src/search/searcher.ts')).href;
  const { Searcher } = (await import(url)) as {
    Searcher: new (deps: { store: MemoryStore; embedder: Embedder; weights: LexicalWeights }) => { search: SearchFn };
  };
  const searcher = new Searcher({ store, embedder, weights: ENGRAM_PROFILE.resolveWeights({ env: process.env }) });
  return (query, options) => searcher.search(query, options);
}

/** What a search or a recall returns: hits, each with its memory. */
interface WithHits {
  hits: ReadonlyArray<{ memory: { id: string } }>;
}

/** Same hits in the same order, with the same scores and explanations (timings aside), of two searches or two recalls. */
export function sameHits(a: WithHits, b: WithHits): boolean {
  const hits = (r: WithHits): string => JSON.stringify(r.hits.map((h) => ({ ...h, memory: h.memory.id })));
  return hits(a) === hits(b);
}
