import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Embedder } from '../../src/embed/embedder.js';
import type { RecallOptions, RecallResult } from '../../src/model/api.js';
import type { SearchOptions } from '../../src/model/search-options.js';
import type { SearchResult } from '../../src/model/search-result.js';
import type { MemoryStore } from '../../src/store/memory-store.js';

/** Where the baseline's store reads: its own SQLite file, or the same PostgreSQL server. */
export type BaselineSource = { sqlitePath: string } | { url: string };

/** Another checkout's read path, whole: its store code, its facade, recall and search. */
export interface BaselineStack {
  recall(query: string, options: RecallOptions): Promise<RecallResult>;
  search(query: string, options: SearchOptions): Promise<SearchResult>;
  close(): Promise<void>;
}

interface FacadeModule {
  Engram: {
    open(options: {
      store: MemoryStore;
      embedder: Embedder;
      trackUsage: boolean;
      ownResources: boolean;
    }): Promise<BaselineStack>;
  };
}

/**
 * The store and facade of another checkout (`dir`, e.g. `git worktree add /tmp/base main~1`) over
 * the same data — a copy of the SQLite file, or the same PostgreSQL database — so a bench compares
 * every layer a change may touch, store included, in one process and interleaved query by query.
 */
export async function openBaselineStack(
  dir: string,
  source: BaselineSource,
  embedder: Embedder,
): Promise<BaselineStack> {
  const load = (path: string): Promise<unknown> => import(pathToFileURL(resolve(dir, path)).href);
  let store: MemoryStore;
  if ('sqlitePath' in source) {
    const { createSqliteStore } = (await load('src/store/sqlite/index.ts')) as {
      createSqliteStore(options: { path: string }): MemoryStore;
    };
    store = createSqliteStore({ path: source.sqlitePath });
  } else {
    const { openStore } = (await load('src/store/open-store.ts')) as { openStore(url: string): Promise<MemoryStore> };
    store = await openStore(source.url);
  }
  const { Engram } = (await load('src/engram.ts')) as FacadeModule;
  const engram = await Engram.open({ store, embedder, trackUsage: false, ownResources: false });
  return {
    recall: (query, options) => engram.recall(query, options),
    search: (query, options) => engram.search(query, options),
    async close() {
      await engram.close();
      await store.close();
    },
  };
}
