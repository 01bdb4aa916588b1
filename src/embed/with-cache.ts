import { EngramError } from '../model/errors.js';
import type { EmbedOptions, Embedder } from './embedder.js';
import { cacheKey, type EmbeddingCache } from './embedding-cache.js';
import { checkVectors } from './vector-checks.js';

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Wraps an embedder so that the same text under the same model id (and, for an asymmetric
 * embedder, the same role) is embedded once: hits come
 * from `cache`, misses go to the inner embedder in one call (duplicates within a call merged)
 * and are stored. Concurrent calls share in-flight work, so two concurrent embeds of one text
 * call the inner embedder once. A caller's abort stops its wait, not the shared work.
 * `close()` closes the inner embedder; the cache, which may be shared, is closed by its owner.
 */
export function withCache(embedder: Embedder, cache: EmbeddingCache): Embedder {
  const inFlight = new Map<string, Promise<Float32Array>>();
  const model = embedder.model;

  return {
    model,
    get dim() {
      return embedder.dim;
    },
    asymmetric: embedder.asymmetric === true,
    async embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
      options?.signal?.throwIfAborted();
      if (texts.length === 0) return [];
      const role = options?.role ?? 'document';
      // Queries of an asymmetric model get other vectors than the same text as a document.
      const space = embedder.asymmetric === true && role === 'query' ? `${model}\u0000query` : model;
      const cached = await cache.getMany(space, texts);
      const keys = texts.map((t) => cacheKey(space, t));
      const waits = new Map<string, Promise<Float32Array>>();
      const toEmbed: string[] = [];
      const toEmbedKeys: string[] = [];
      const queued = new Set<string>();
      texts.forEach((text, i) => {
        const key = keys[i] as string;
        if (cached[i] !== undefined || waits.has(key) || queued.has(key)) return;
        const pending = inFlight.get(key);
        if (pending) {
          waits.set(key, pending);
        } else {
          toEmbed.push(text);
          toEmbedKeys.push(key);
          queued.add(key);
        }
      });
      if (toEmbed.length > 0) {
        const work = (async (): Promise<Float32Array[]> => {
          const vectors = await embedder.embed(toEmbed, { role });
          checkVectors(vectors, toEmbed.length, undefined, `Embedder ${model}`);
          await cache.setMany(
            space,
            toEmbed.map((t, i) => [t, vectors[i] as Float32Array] as const),
          );
          return vectors;
        })();
        toEmbedKeys.forEach((key, i) => {
          const one = work.then((vectors) => vectors[i] as Float32Array);
          one.catch(() => undefined);
          inFlight.set(key, one);
          waits.set(key, one);
        });
        work.then(
          () => toEmbedKeys.forEach((key) => inFlight.delete(key)),
          () => toEmbedKeys.forEach((key) => inFlight.delete(key)),
        );
      }
      const resolved = new Map<string, Float32Array>();
      await abortable(
        Promise.all(
          [...waits].map(async ([key, pending]) => {
            resolved.set(key, await pending);
          }),
        ),
        options?.signal,
      );
      return texts.map((_, i) => {
        const hit = cached[i];
        if (hit !== undefined) return hit;
        const vector = resolved.get(keys[i] as string);
        if (!vector) throw new EngramError('EMBEDDER_ERROR', 'Cache lost a vector in flight');
        return vector.slice();
      });
    },
    async close() {
      await embedder.close?.();
    },
  };
}
