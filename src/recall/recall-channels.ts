import type { MemoryFilter } from '../model/memory-filter.js';
import type { DenseCandidate, LexicalCandidate, MemoryStore } from '../store/memory-store.js';

/** What the two channels of a recall are asked for. */
export interface ChannelRequest {
  filter: MemoryFilter;
  queryVector: Float32Array;
  model: string;
  /** Rows of the dense pool. */
  densePool: number;
  /** Words for the store's full-text index. */
  lexicalTerms: readonly string[];
  /** Rows of the corpus lexical channel (0 = off). */
  lexicalPool: number;
  /** The profile's analyzer: candidates may come with their documents (see `SearchExtras.analyzer`). */
  analyzer?: string | undefined;
}

/** The rows each channel returned and the milliseconds it took. */
export interface ChannelRows {
  dense: { rows: DenseCandidate[]; ms: number };
  lexical: { rows: LexicalCandidate[]; ms: number };
}

/**
 * The dense pool and the corpus lexical channel, run concurrently. A synchronous store does its
 * work inside the call, an async one after it: each channel's time is its call plus how long the
 * recall then waited for it.
 */
export async function runRecallChannels(
  store: MemoryStore,
  request: ChannelRequest,
  now: () => number,
): Promise<ChannelRows> {
  const { filter, queryVector, model, analyzer } = request;
  const useLexical = request.lexicalPool > 0;
  const t0 = now();
  // Rows and the lexical candidates' cosines with the searches: a store whose reads are round
  // trips answers them here, and the recall then reads nothing else before its hits.
  const densePromise = store.denseSearch({
    filter,
    vector: queryVector,
    model,
    limit: request.densePool,
    withRows: true,
    analyzer,
  });
  const t1 = now();
  const lexicalPromise = useLexical
    ? store.lexicalSearch({
        filter,
        terms: [...request.lexicalTerms],
        limit: request.lexicalPool,
        space: { model, dim: queryVector.length },
        scoreWith: queryVector,
        withRows: true,
        analyzer,
      })
    : Promise.resolve([]);
  const t2 = now();
  // Awaited below; handled now so that a dense failure does not leave its rejection unhandled.
  lexicalPromise.catch(() => undefined);
  const denseRows = await densePromise;
  const t3 = now();
  const lexicalRows = await lexicalPromise;
  const t4 = now();
  return {
    dense: { rows: denseRows, ms: t1 - t0 + (t3 - t2) },
    lexical: { rows: lexicalRows, ms: useLexical ? t2 - t1 + (t4 - t2) : 0 },
  };
}
