import { isEngramError } from '../model/errors.js';
import { retry, type RetryOptions } from '../util/retry.js';
import type { EmbedOptions, Embedder } from './embedder.js';

/**
 * Wraps an embedder so that failed `embed` calls are retried with the shared {@link retry}
 * helper (exponential backoff with jitter). By default only EngramErrors marked
 * `isRetryable` (429, 5xx, network errors, timeouts) are retried, 3 times.
 */
export function withRetry(embedder: Embedder, options: Omit<RetryOptions, 'signal'> = {}): Embedder {
  return {
    model: embedder.model,
    get dim() {
      return embedder.dim;
    },
    asymmetric: embedder.asymmetric === true,
    embed(texts: string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const signal = embedOptions?.signal;
      return retry(() => embedder.embed(texts, embedOptions), {
        isRetryable: (error) => isEngramError(error) && error.isRetryable,
        ...options,
        signal,
      });
    },
    async close() {
      await embedder.close?.();
    },
  };
}
