import { EngramError } from '../model/errors.js';
import type { EmbedOptions, Embedder } from './embedder.js';

/** Options of {@link withTimeout}. */
export interface TimeoutOptions {
  /** Time limit of one `embed` call in ms. */
  timeoutMs: number;
}

/**
 * Wraps an embedder so that an `embed` call taking longer than `timeoutMs` rejects with a
 * retryable EngramError('TIMEOUT'); the inner call is aborted through its signal.
 */
export function withTimeout(embedder: Embedder, options: TimeoutOptions): Embedder {
  const { timeoutMs } = options;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new EngramError('CONFIG_ERROR', `timeoutMs must be a positive number, got ${String(timeoutMs)}`);
  }
  return {
    model: embedder.model,
    get dim() {
      return embedder.dim;
    },
    asymmetric: embedder.asymmetric === true,
    async embed(texts: string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const outer = embedOptions?.signal;
      outer?.throwIfAborted();
      const controller = new AbortController();
      const onAbort = (): void => controller.abort(outer?.reason);
      outer?.addEventListener('abort', onAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new EngramError('TIMEOUT', `Embedder ${embedder.model} took longer than ${timeoutMs} ms`, {
            isRetryable: true,
            details: { timeoutMs, model: embedder.model },
          });
          controller.abort(error);
          reject(error);
        }, timeoutMs);
      });
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      });
      const work = embedder.embed(texts, { ...embedOptions, signal: controller.signal });
      work.catch(() => undefined);
      aborted.catch(() => undefined);
      try {
        return await Promise.race([work, timeout, aborted]);
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', onAbort);
      }
    },
    async close() {
      await embedder.close?.();
    },
  };
}
