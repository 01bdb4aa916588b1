import type { Embedder } from '../../src/embed/embedder.js';
import { createLocalEmbedder, createSqliteEmbeddingCache, withCache } from '../../src/embed/index.js';

/** Where the bench keeps its embedding cache (gitignored). */
export const BENCH_EMBEDDING_CACHE = new URL('../.cache/embeddings.db', import.meta.url).pathname;

/** The default embedder, uncached (for timings that must include embedding). */
export function openRawEmbedder(): Embedder {
  return createLocalEmbedder();
}

/**
 * The default embedder behind the persistent SQLite embedding cache at
 * {@link BENCH_EMBEDDING_CACHE}, so reruns never embed the same text twice.
 * `close()` releases both the model and the cache file.
 */
export function openBenchEmbedder(path: string = BENCH_EMBEDDING_CACHE): Embedder {
  const cache = createSqliteEmbeddingCache({ path });
  const cached = withCache(createLocalEmbedder(), cache);
  return {
    model: cached.model,
    asymmetric: cached.asymmetric === true,
    get dim() {
      return cached.dim;
    },
    embed: (texts, options) => cached.embed(texts, options),
    async close() {
      await cached.close?.();
      await cache.close?.();
    },
  };
}

/** An embedder that serves precomputed vectors by text (loads a corpus without running a model). */
export function lookupEmbedder(model: string, dim: number, vectors: ReadonlyMap<string, Float32Array>): Embedder {
  return {
    model,
    dim,
    async embed(texts) {
      return texts.map((t) => {
        const v = vectors.get(t);
        if (v === undefined) throw new Error(`no precomputed vector for ${JSON.stringify(t.slice(0, 60))}`);
        return v;
      });
    },
  };
}
