import { EngramError } from '../model/errors.js';
import { cacheKey, type EmbeddingCache } from './embedding-cache.js';

/** Options of {@link createLruEmbeddingCache}. */
export interface LruEmbeddingCacheOptions {
  /** Most vectors kept; the least recently used go first. @default 10000 */
  maxEntries?: number | undefined;
}

/** An in-memory least-recently-used embedding cache. */
export interface LruEmbeddingCache extends EmbeddingCache {
  /** Number of vectors held. */
  readonly size: number;
  clear(): void;
}

/** Creates an in-memory LRU {@link EmbeddingCache} (keys: model id + sha256 of the text). */
export function createLruEmbeddingCache(options: LruEmbeddingCacheOptions = {}): LruEmbeddingCache {
  const maxEntries = options.maxEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new EngramError('CONFIG_ERROR', `maxEntries must be a positive integer, got ${String(maxEntries)}`);
  }
  // A Map iterates in insertion order: re-inserting on use keeps the oldest first.
  const entries = new Map<string, Float32Array>();
  return {
    get size() {
      return entries.size;
    },
    getMany(model, texts) {
      return texts.map((text) => {
        const key = cacheKey(model, text);
        const hit = entries.get(key);
        if (hit === undefined) return undefined;
        entries.delete(key);
        entries.set(key, hit);
        return hit.slice();
      });
    },
    setMany(model, items) {
      for (const [text, vector] of items) {
        const key = cacheKey(model, text);
        entries.delete(key);
        entries.set(key, vector.slice());
        while (entries.size > maxEntries) {
          const oldest = entries.keys().next();
          if (oldest.done) break;
          entries.delete(oldest.value);
        }
      }
    },
    clear() {
      entries.clear();
    },
  };
}
