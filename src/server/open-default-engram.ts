import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../embed/embedder.js';
import { EngramError } from '../model/errors.js';
import { Engram, type EngramOptions } from '../engram.js';
import { createSqliteStore } from '../store/sqlite/index.js';

/** File name of the memory database inside a data directory. */
export const DATABASE_FILE = 'engram.sqlite';

/** Options of {@link openDefaultEngram}. */
export interface DefaultEngramOptions {
  /** Data directory; created when missing. */
  dataDir: string;
  /** @default the offline local embedder */
  embedder?: Embedder | undefined;
  /** Facade options besides store and embedder. */
  engram?: Omit<EngramOptions, 'store' | 'embedder'> | undefined;
}

async function localEmbedder(): Promise<Embedder> {
  // Loaded lazily: the local model is heavy, and servers given an embedder never load it.
  const specifier = '../embed/index.js';
  const module = (await import(specifier)) as { createLocalEmbedder?: () => Embedder | Promise<Embedder> };
  if (typeof module.createLocalEmbedder !== 'function') {
    throw new EngramError('CONFIG_ERROR', 'the local embedder is not available; pass an embedder');
  }
  return module.createLocalEmbedder();
}

/** The embedded defaults: SQLite at `<dataDir>/engram.sqlite` and the local embedder. */
export async function openDefaultEngram(options: DefaultEngramOptions): Promise<Engram> {
  mkdirSync(options.dataDir, { recursive: true });
  const store = createSqliteStore({ path: join(options.dataDir, DATABASE_FILE) });
  try {
    const embedder = options.embedder ?? (await localEmbedder());
    return await Engram.open({ ...options.engram, store, embedder });
  } catch (error) {
    await store.close();
    throw error;
  }
}
