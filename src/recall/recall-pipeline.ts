import type { RecallResult } from '../api.js';
import type { Channel, Hit } from '../model/hit.js';
import type { Memory } from '../model/memory.js';
import type { MemoryFilter, MemoryStore } from '../store/memory-store.js';
import { cosine } from '../vector/cosine.js';
import { topK } from '../vector/top-k.js';
import { candidatePoolSize } from './candidate-pool.js';
import type { LexicalWeights } from './lexical-weights.js';
import { fuseLinear } from './linear-fusion.js';
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
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
}

interface Candidate {
  id: string;
  cosine: number;
  denseRank?: number;
  lexicalRank?: number;
  memory: Memory;
  bm25: number;
  bm25Raw: number;
  fused: number;
}

/** Best first: fused score, then cosine, then id — a total order, so ties are deterministic. */
function compareCandidates(a: Candidate, b: Candidate): number {
  return b.fused - a.fused || b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The recall read path of seed 000: dense candidate pool, BM25 over the pool fused with the
 * cosine, partial top-N, threshold. With a profile that enables it, a corpus-level full-text
 * channel adds lexical matches from outside the dense pool before ranking. Read-only except for
 * nothing: usage is recorded by the caller.
 */
export async function runRecall(
  deps: RecallDeps,
  request: RecallRequest,
  embedMs = 0,
): Promise<Omit<RecallResult, 'query'>> {
  const now = deps.now ?? (() => performance.now());
  const start = now();
  const { store, } = deps;
  const { profile, limit, filter } = request;
  const tokens = profile.tokenize(request.query);
  const hasText = request.query.trim().length > 0;
  // Asking for the formula's upper bound returns min(rows, bound) rows: the reference pool exactly.
  const densePool = candidatePoolSize(limit, Number.MAX_SAFE_INTEGER, hasText);
  const lexicalPool = hasText && tokens.length > 0 ? profile.lexicalPoolSize(densePool) : 0;

  const denseStart = now();
  const densePromise = store
    .denseSearch({ filter, vector: request.queryVector, model: request.model, limit: densePool })
    .then((rows) => ({ rows, ms: now() - denseStart }));
  const lexicalPromise =
    lexicalPool > 0
      ? store
          .lexicalSearch({ filter, terms: [...new Set(profile.queryTerms(request.query))], limit: lexicalPool })
          .then((rows) => ({ rows, ms: now() - denseStart }))
      : Promise.resolve({ rows: [], ms: 0 });
  const [dense, lexical] = await Promise.all([densePromise, lexicalPromise]);

  const rankStart = now();
  const byId = new Map<string, Omit<Candidate, 'memory' | 'bm25' | 'bm25Raw' | 'fused'>>();
  dense.rows.forEach((row, i) => byId.set(row.id, { id: row.id, cosine: row.cosine, denseRank: i + 1 }));
  const lexicalOnly: string[] = [];
  lexical.rows.forEach((row, i) => {
    const seen = byId.get(row.id);
    if (seen) seen.lexicalRank = i + 1;
    else {
      byId.set(row.id, { id: row.id, cosine: 0, lexicalRank: i + 1 });
      lexicalOnly.push(row.id);
    }
  });
  if (lexicalOnly.length > 0) {
    const vectors = await store.getVectors(filter.scope.tenant, lexicalOnly);
    for (const id of lexicalOnly) {
      const vector = vectors.get(id);
      const entry = byId.get(id);
      if (vector && entry) entry.cosine = cosine(request.queryVector, vector);
    }
  }
  const memories = await store.get(filter.scope.tenant, [...byId.keys()]);

  const candidates: Candidate[] = [];
  for (const memory of memories) {
    const entry = byId.get(memory.id);
    if (entry) candidates.push({ ...entry, memory, bm25: 0, bm25Raw: 0, fused: entry.cosine });
  }
  const fusion = fuseLinear(hasText ? tokens : [], candidates.map((c) => ({ text: c.memory.text, cosine: c.cosine })), {
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
  const hits: Hit[] = [];
  const cut: Hit[] = [];
  for (const c of ranked) {
    const channels: Channel[] = [];
    if (c.denseRank !== undefined) channels.push('dense');
    if (c.lexicalRank !== undefined) channels.push('lexical');
    const hit: Hit = {
      memory: c.memory,
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
