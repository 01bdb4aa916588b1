import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from './embed/embedder.js';
import { createLocalEmbedder, resolveEmbedder } from './embed/index.js';
import { Engram, type EngramOptions } from './engram.js';
import { createSqliteStore } from './store/sqlite/index.js';
import { dataDirTenantPolicy } from './tenant/tenant-settings.js';

/** File name of the memory database inside a data directory. */
export const DATABASE_FILE = 'engram.db';

/** Options of {@link openDefaultEngram}. */
export interface DefaultEngramOptions {
  /** Data directory; created when missing. */
  dataDir: string;
  /** An embedder, or a name for `resolveEmbedder` (e.g. `'openai:text-embedding-3-small'`). @default the offline local embedder */
  embedder?: Embedder | string | undefined;
  /**
   * Facade options besides store and embedder. @default the tenants' safety policies of the data
   * directory (`<dataDir>/tenants.sqlite`, set with `engram safety set`) unless `safety.tenantPolicy` is given
   */
  engram?: Omit<EngramOptions, 'store' | 'embedder'> | undefined;
}

/** The embedded defaults: SQLite at `<dataDir>/engram.db` and the local embedder. */
export async function openDefaultEngram(options: DefaultEngramOptions): Promise<Engram> {
  mkdirSync(options.dataDir, { recursive: true });
  const store = createSqliteStore({ path: join(options.dataDir, DATABASE_FILE) });
  try {
    const embedder =
      typeof options.embedder === 'string'
        ? await resolveEmbedder(options.embedder)
        : (options.embedder ?? createLocalEmbedder());
    const safety = {
      ...options.engram?.safety,
      tenantPolicy: options.engram?.safety?.tenantPolicy ?? dataDirTenantPolicy(options.dataDir),
    };
    return await Engram.open({ ...options.engram, safety, store, embedder });
  } catch (error) {
    await store.close();
    throw error;
  }
}
