import type { EmbedOptions, Embedder } from './embedder.js';
import { checkVectors } from './vector-checks.js';

/** The embedders this module made: wrapping one again returns it, so each answer is checked once. */
const checked = new WeakSet<Embedder>();

/**
 * Wraps an embedder so that every `embed` answer is checked ({@link checkVectors}): an array of
 * Float32Arrays, one per text, of the embedder's dimension (or, while it is unknown (0), of one
 * dimension), finite values only. A custom embedder that answers anything else makes every entry
 * point fail the same way, with EngramError('EMBEDDER_ERROR'), before a vector is stored or ranked.
 * An embedder this function returned is returned as it is.
 */
export function withCheckedVectors(embedder: Embedder): Embedder {
  if (checked.has(embedder)) return embedder;
  const source = `Embedder ${embedder.model}`;
  const wrapper: Embedder = {
    model: embedder.model,
    get dim() {
      return embedder.dim;
    },
    asymmetric: embedder.asymmetric === true,
    async embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
      const vectors: unknown = await embedder.embed(texts, options);
      checkVectors(vectors, texts.length, embedder.dim > 0 ? embedder.dim : undefined, source);
      return vectors;
    },
    async close() {
      await embedder.close?.();
    },
  };
  checked.add(wrapper);
  return wrapper;
}
