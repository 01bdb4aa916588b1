/**
 * Turns texts into vectors. Implementations are small; batching, caching, retries and
 * timeouts wrap them as middleware.
 */
export interface Embedder {
  /** Stable model id stored with every vector, e.g. 'use-lite' or 'openai:text-embedding-3-small'. */
  readonly model: string;
  /** Vector dimension. */
  readonly dim: number;
  /** One vector per text, in order. Rejects with an EngramError('EMBEDDER_ERROR', …) on failure. */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /** Releases workers, sockets or native handles. */
  close?(): Promise<void>;
}

export interface EmbedOptions {
  signal?: AbortSignal | undefined;
}
