import { createHash } from 'node:crypto';

/**
 * Storage behind {@link withCache}: vectors keyed by (model id, sha256 of the text). Either
 * synchronous or asynchronous; implementations return their own copies of vectors.
 */
export interface EmbeddingCache {
  /** One entry per text, `undefined` where the cache has none. */
  getMany(
    model: string,
    texts: readonly string[],
  ): Array<Float32Array | undefined> | Promise<Array<Float32Array | undefined>>;
  /** Stores vectors; an existing entry for the same key is replaced. */
  setMany(model: string, entries: ReadonlyArray<readonly [text: string, vector: Float32Array]>): void | Promise<void>;
  /** Releases files or handles. */
  close?(): void | Promise<void>;
}

/** sha256 of the UTF-8 text, hex. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Cache key of a text under a model id. */
export function cacheKey(model: string, text: string): string {
  return `${model}\u0000${textHash(text)}`;
}
