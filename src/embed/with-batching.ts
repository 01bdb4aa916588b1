import { EngramError } from '../model/errors.js';
import type { EmbedOptions, Embedder } from './embedder.js';

/** Options of {@link withBatching}. */
export interface BatchingOptions {
  /** Most texts per call to the inner embedder. @default 64 */
  batchSize?: number | undefined;
  /** Batches in flight at once. @default 1 */
  concurrency?: number | undefined;
}

/** Wraps an embedder so that large inputs go to it in batches, optionally several at a time; order is kept. */
export function withBatching(embedder: Embedder, options: BatchingOptions = {}): Embedder {
  const batchSize = options.batchSize ?? 64;
  const concurrency = options.concurrency ?? 1;
  for (const [name, value] of [
    ['batchSize', batchSize],
    ['concurrency', concurrency],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new EngramError('CONFIG_ERROR', `${name} must be a positive integer, got ${String(value)}`);
    }
  }
  return {
    model: embedder.model,
    get dim() {
      return embedder.dim;
    },
    asymmetric: embedder.asymmetric === true,
    async embed(texts: string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const batches: string[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) batches.push(texts.slice(i, i + batchSize));
      const results: Float32Array[][] = new Array<Float32Array[]>(batches.length);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < batches.length) {
          const index = next++;
          const batch = batches[index] as string[];
          embedOptions?.signal?.throwIfAborted();
          const vectors = await embedder.embed(batch, embedOptions);
          if (vectors.length !== batch.length) {
            throw new EngramError(
              'EMBEDDER_ERROR',
              `Embedder ${embedder.model} returned ${vectors.length} vectors for ${batch.length} texts`,
            );
          }
          results[index] = vectors;
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
      return results.flat();
    },
    async close() {
      await embedder.close?.();
    },
  };
}
