import type { RecallResult } from '../model/api.js';
import type { Channel, Hit } from '../model/hit.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { MemoryFilter } from '../model/memory-filter.js';
import { topK } from '../vector/top-k.js';
import { candidatePoolSize } from './candidate-pool.js';
import type { LexicalWeights } from './lexical-weights.js';
import { fuseLinear, type FusionDocument } from './linear-fusion.js';
import type { TokenCache } from './token-cache.js';
import type { RecallProfileSpec } from './recall-profile.js';

/** One recall, fully specified. The facade fills the defaults and validates before calling. */
export interface RecallRequest {
  query: string;
  /** The query's vector under `model`. */
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

interface Candidate {
  id: string;
  cosine: number;
  denseRank: number | undefined;
  lexicalRank: number | undefined;
  updatedAt: string | undefined;
  bm25: number;
  bm25Raw: number;
  fused: number;
}

/** Every candidate has the same shape from the start (keeps property access monomorphic). */
function newCandidate(
  id: string,
  cosine: number,
  updatedAt: string | undefined,
  denseRank: number | undefined,
  lexicalRank: number | undefined,
): Candidate {
  return { id, cosine, denseRank, lexicalRank, updatedAt, bm25: 0, bm25Raw: 0, fused: cosine };
}

/** Best first: fused score, then cosine, then id — a total order, so ties are deterministic. */
function compareCandidates(a: Candidate, b: Candidate): number {
  return b.fused - a.fused || b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The recall read path of seed 000: dense candidate pool, BM25 over the pool fused with the
 * cosine, partial top-N, threshold. With a profile that enables it, a corpus-level full-text
 * channel adds lexical matches from outside the dense pool before ranking. Read-only: usage is
 * recorded by the caller.
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
  const tokens = profile.tokenize(request.query);
  const hasText = request.query.trim().length > 0;
  // Asking for the formula's upper bound returns min(rows, bound) rows: the reference pool exactly.
  const densePool = candidatePoolSize(limit, Number.MAX_SAFE_INTEGER, hasText);
  const lexicalPool = hasText && tokens.length > 0 ? profile.lexicalPoolSize(densePool) : 0;

  // Channels run concurrently. A synchronous store does its work inside the call, an async one
  // after it: each channel's time is its call plus how long the recall then waited for it.
  const t0 = now();
  const densePromise = store.denseSearch({
    filter,
    vector: request.queryVector,
    model: request.model,
    limit: densePool,
  });
  const t1 = now();
  const lexicalPromise =
    lexicalPool > 0
      ? store.lexicalSearch({
          filter,
          terms: [...new Set(profile.queryTerms(request.query))],
          limit: lexicalPool,
          space: { model: request.model, dim: request.queryVector.length },
        })
      : Promise.resolve([]);
  const t2 = now();
  const denseRows = await densePromise;
  const t3 = now();
  const lexicalRows = await lexicalPromise;
  const t4 = now();
  const dense = { rows: denseRows, ms: t1 - t0 + (t3 - t2) };
  const lexical = { rows: lexicalRows, ms: lexicalPool > 0 ? t2 - t1 + (t4 - t2) : 0 };

  const rankStart = now();
  const byId = new Map<string, Candidate>();
  dense.rows.forEach((row, i) => byId.set(row.id, newCandidate(row.id, row.cosine, row.updatedAt, i + 1, undefined)));
  const lexicalOnly: string[] = [];
  lexical.rows.forEach((row, i) => {
    const seen = byId.get(row.id);
    if (seen) seen.lexicalRank = i + 1;
    else {
      byId.set(row.id, newCandidate(row.id, 0, undefined, undefined, i + 1));
      lexicalOnly.push(row.id);
    }
  });
  if (lexicalOnly.length > 0) {
    // The store scores them with the same arithmetic as the dense channel (and from its vector cache).
    const scored = await store.denseSearch({
      filter: { ...filter, ids: lexicalOnly },
      vector: request.queryVector,
      model: request.model,
      limit: lexicalOnly.length,
    });
    for (const row of scored) {
      const entry = byId.get(row.id);
      if (entry) {
        entry.cosine = row.cosine;
        entry.updatedAt = row.updatedAt;
      }
    }
  }
  // Ranking needs only tokens: those of candidates the token cache knows (by id and last update,
  // when the store reports it) are reused; texts are read for the rest only.
  const tenant = filter.scope.tenant;
  const cache = deps.tokenCache?.view(profile.name, tenant);
  const tokensOf = new Map<string, readonly string[]>();
  const unknown: string[] = [];
  for (const c of byId.values()) {
    const cached = c.updatedAt === undefined ? undefined : cache?.peek(c.id, c.updatedAt);
    if (cached) tokensOf.set(c.id, cached);
    else unknown.push(c.id);
  }
  if (unknown.length > 0) {
    const texts = store.getTexts
      ? await store.getTexts(tenant, unknown)
      : (await store.get(tenant, unknown)).map((m) => ({ id: m.id, text: m.text, updatedAt: m.updatedAt }));
    for (const t of texts) {
      const entry = byId.get(t.id);
      if (!entry) continue;
      entry.updatedAt = t.updatedAt;
      tokensOf.set(t.id, cache ? cache.tokens(profile.tokenize, t.id, t.updatedAt, t.text) : profile.tokenize(t.text));
    }
  }
  // A candidate whose text could not be read (deleted meanwhile) is left out.
  const candidates: Candidate[] = [];
  const documents: FusionDocument[] = [];
  for (const c of byId.values()) {
    const tokens = tokensOf.get(c.id);
    if (tokens === undefined) continue;
    candidates.push(c);
    documents.push({ tokens, cosine: c.cosine });
  }
  const fusion = fuseLinear(hasText ? tokens : [], documents, {
    weights: request.weights,
    tokenize: profile.tokenize,
    bm25: profile.bm25,
  });
  const { denseWeight, lexicalWeight } = fusion;
  candidates.forEach((c, i) => {
    c.bm25 = fusion.bm25[i] as number;
    c.bm25Raw = fusion.bm25Raw[i] as number;
    c.fused = fusion.fused[i] as number;
  });
  const ranked = topK(candidates, limit, compareCandidates);
  const fetched = await store.get(
    filter.scope.tenant,
    ranked.map((c) => c.id),
  );
  const memoryById = new Map(fetched.map((m) => [m.id, m]));
  const hits: Hit[] = [];
  const cut: Hit[] = [];
  for (const c of ranked) {
    // A memory deleted between ranking and fetching is left out rather than shown stale.
    const memory = memoryById.get(c.id);
    if (!memory) continue;
    const channels: Channel[] = [];
    if (c.denseRank !== undefined) channels.push('dense');
    if (c.lexicalRank !== undefined) channels.push('lexical');
    const hit: Hit = {
      memory,
      score: c.fused,
      explanation: {
        channels,
        cosine: c.cosine,
        bm25: c.bm25,
        bm25Raw: c.bm25Raw,
        denseWeight,
        lexicalWeight,
        fused: c.fused,
        denseRank: c.denseRank,
        lexicalRank: c.lexicalRank,
      },
    };
    (c.fused >= request.threshold ? hits : cut).push(hit);
  }
  const end = now();
  return {
    hits,
    cut,
    poolSize: candidates.length,
    timings: {
      embedMs,
      denseMs: dense.ms,
      lexicalMs: lexical.ms,
      rankMs: end - rankStart,
      totalMs: end - start + embedMs,
    },
  };
}
