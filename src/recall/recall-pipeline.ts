import type { RecallResult } from '../model/api.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { MemoryFilter } from '../model/memory-filter.js';
import { candidatePoolSize } from './candidate-pool.js';
import { explainHits } from './explain-hits.js';
import type { LexicalWeights } from './lexical-weights.js';
import { rankPool } from './rank-pool.js';
import type { RecallCandidate } from './recall-candidate.js';
import { runRecallChannels } from './recall-channels.js';
import type { RankDocument } from '../text/term-document.js';
import { candidateDocuments, mergeChannels, scoreLexicalOnly } from './recall-pool.js';
import type { RecallProfileSpec } from './recall-profile.js';
import type { TokenCache } from './token-cache.js';

/** One recall, fully specified. The facade fills the defaults and validates before calling. */
export interface RecallRequest {
  query: string;
  /** The query's vector under `model` (the facade embeds the query). */
  queryVector: Float32Array;
  model: string;
  filter: MemoryFilter;
  limit: number;
  threshold: number;
  weights: LexicalWeights;
  profile: RecallProfileSpec;
}

export interface RecallDeps {
  store: MemoryStore;
  /** Reuses candidates' tokens across queries. @default none (tokenise every time) */
  tokenCache?: TokenCache | undefined;
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
}

/**
 * The recall read path, in its steps: (the caller embeds the query) → the dense pool and the
 * corpus lexical channel, concurrently → one candidate pool, cosines for lexical-only candidates,
 * documents (tokens, context, speakers) from the cache or the store → rank the pool (the profile's
 * fusion, partial top-N) →
 * threshold and explain. The reference recall is this with the `seed` profile (no lexical
 * channel). Read-only: usage is recorded by the caller.
 */
export async function runRecall(
  deps: RecallDeps,
  request: RecallRequest,
  embedMs = 0,
): Promise<Omit<RecallResult, 'query' | 'withheld'>> {
  const now = deps.now ?? (() => performance.now());
  const start = now();
  const { store } = deps;
  const { profile, limit, filter } = request;
  const tokens = profile.queryTokenize(request.query);
  const hasText = request.query.trim().length > 0;
  // Asking for the formula's upper bound returns min(rows, bound) rows: the reference pool exactly.
  const densePool = candidatePoolSize(limit, Number.MAX_SAFE_INTEGER, hasText);
  const lexicalPool = hasText && tokens.length > 0 ? profile.lexicalPoolSize(densePool) : 0;
  const channels = await runRecallChannels(
    store,
    {
      filter,
      queryVector: request.queryVector,
      model: request.model,
      densePool,
      lexicalTerms: lexicalPool > 0 ? [...new Set(profile.queryTerms(request.query))] : [],
      lexicalPool,
      analyzer: profile.analyzer?.name,
    },
    now,
  );

  const rankStart = now();
  const { byId, lexicalOnly, rows: rowsRead } = mergeChannels(channels);
  await scoreLexicalOnly(store, request, byId, lexicalOnly);
  const documentOf = await candidateDocuments(deps, profile, filter.scope.tenant, byId, rowsRead);
  const pool: RecallCandidate[] = [];
  const documents: RankDocument[] = [];
  for (const c of byId.values()) {
    const d = documentOf.get(c.id);
    if (d === undefined) continue;
    pool.push(c);
    documents.push(d);
  }
  const ranking = rankPool(hasText ? tokens : [], pool, documents, request, limit);
  const { hits, cut } = await explainHits(store, filter.scope.tenant, ranking, request.threshold, rowsRead);
  const end = now();
  return {
    hits,
    cut,
    poolSize: pool.length,
    timings: {
      embedMs,
      denseMs: channels.dense.ms,
      lexicalMs: channels.lexical.ms,
      rankMs: end - rankStart,
      totalMs: end - start + embedMs,
    },
  };
}
