import type { Memory } from '../../model/memory.js';

/** One candidate handed to a reranker. */
export interface RerankCandidate {
  memory: Memory;
  /** Score so far (the fusion's), best first in the incoming order. */
  score: number;
  /** Max cosine of the memory with the query vectors (0 without a vector). */
  cosine: number;
}

/** A reranker's verdict on one candidate. */
export interface RerankScore {
  /** Index into the request's candidates. */
  index: number;
  score: number;
}

/** What a reranker is asked. */
export interface RerankRequest {
  query: string;
  /** Candidates in their incoming order (best first). */
  candidates: RerankCandidate[];
  topK: number;
  signal?: AbortSignal | undefined;
}

/**
 * The reranker contract: score candidates against the query and return at most `topK` of them,
 * best first. Implementations never throw for a failed remote call: they degrade to the incoming
 * order (see each implementation).
 */
export interface Reranker {
  /** Registry name, e.g. `cosine-local`. */
  readonly name: string;
  rerank(request: RerankRequest): Promise<RerankScore[]>;
}
