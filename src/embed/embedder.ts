/**
 * Turns texts into vectors. Implementations are small; batching, caching, retries and
 * timeouts wrap them as middleware.
 */
export interface Embedder {
  /** Stable model id stored with every vector, e.g. 'use-lite' or 'openai:text-embedding-3-small'. */
  readonly model: string;
  /** Vector dimension. */
  readonly dim: number;
  /**
   * True when {@link EmbedOptions.role} changes the vectors: asymmetric models (e5, bge, nomic…)
   * embed search queries with another prefix than stored documents. Caches keep the roles apart.
   * @default false
   */
  readonly asymmetric?: boolean;
  /**
   * One vector per text, in order. Rejects with an EngramError('EMBEDDER_ERROR', …) on failure.
   * Engram checks every answer (an array of finite Float32Arrays of `dim`, one per text) and fails
   * the call with EMBEDDER_ERROR on anything else, before a vector is stored or ranked.
   */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /** Releases workers, sockets or native handles. */
  close?(): Promise<void>;
}

/** What the texts of one {@link Embedder.embed} call are. */
export type EmbedRole = 'query' | 'document';

export interface EmbedOptions {
  signal?: AbortSignal | undefined;
  /**
   * `'query'` for a search query (recall, search), `'document'` for a text to store (add,
   * import, re-embed). Symmetric embedders ignore it.
   * @default 'document'
   */
  role?: EmbedRole | undefined;
}
