import type { Memory } from '../../model/memory.js';
import { poolDocumentOf } from '../../text/pool-document.js';
import { scorePool } from '../../recall/rank-pool.js';
import { topK } from '../../vector/top-k.js';
import { applyBoost } from '../rank/boost.js';
import type { PathInputs } from './path-inputs.js';
import type { SearchCandidate } from './search-candidate.js';

/** A memory a path found, with the channels that found it and its best cosine with the query. */
export interface FoundMemory {
  memory: Memory;
  channels: Record<string, number>;
  cosine: number;
}

/**
 * Ranks a path's candidates the way the core recall does — `scorePool`, the profile's fusion (with
 * the best cosine over the query vectors) — then over-fetches `2·topK` by fused score, hands them
 * to the reranker for its `topK`, and applies boosts.
 */
export async function rankCandidates(
  inputs: Pick<PathInputs, 'goal' | 'profile' | 'weights' | 'reranker' | 'boost' | 'collection' | 'signal'>,
  pathName: string,
  found: readonly FoundMemory[],
  k: number,
): Promise<SearchCandidate[]> {
  return rerankPool(inputs, fusedPool(inputs, pathName, found, k), k);
}

/**
 * Hands a path's fused pool (best first) to the reranker for its `k`, then applies boosts. The
 * candidates are updated in place and returned in the reranker's order.
 */
export async function rerankPool(
  inputs: Pick<PathInputs, 'goal' | 'reranker' | 'boost' | 'signal'>,
  pool: readonly SearchCandidate[],
  k: number,
): Promise<SearchCandidate[]> {
  const verdict = await inputs.reranker.rerank({
    query: inputs.goal.rephrasedQuery,
    candidates: pool.map((c) => ({ memory: c.memory, score: c.fused, cosine: c.cosine })),
    topK: k,
    signal: inputs.signal,
  });
  const out: SearchCandidate[] = [];
  for (const { index, score } of verdict) {
    const c = pool[index];
    if (!c) continue;
    if (inputs.reranker.name !== 'noop') c.rerank = { name: inputs.reranker.name, score };
    c.score = score;
    if (inputs.boost) {
      const boosted = applyBoost(c.score, c.memory, inputs.boost);
      c.score = boosted.score;
      c.boost = boosted.factor;
    }
    out.push(c);
  }
  return out;
}

/** The core recall fusion over everything the path found, cut to the `2·k` the reranker sees. */
function fusedPool(
  inputs: Pick<PathInputs, 'goal' | 'profile' | 'weights' | 'collection'>,
  pathName: string,
  found: readonly FoundMemory[],
  k: number,
): SearchCandidate[] {
  const tokens = inputs.profile.queryTokenize(inputs.goal.rephrasedQuery);
  const fusion = scorePool(
    tokens,
    found.map((f) => poolDocumentOf(f.memory, inputs.profile)),
    found.map((f) => f.cosine),
    { weights: inputs.weights, profile: inputs.profile },
  );
  const all: SearchCandidate[] = found.map((f, i) => ({
    memory: f.memory,
    collection: inputs.collection,
    paths: new Set([pathName]),
    channels: f.channels,
    cosine: f.cosine,
    bm25: fusion.bm25[i] as number,
    lexicalWeight: fusion.lexicalWeight,
    fused: fusion.fused[i] as number,
    score: fusion.fused[i] as number,
  }));
  return topK(
    all,
    2 * k,
    (a, b) =>
      b.fused - a.fused || b.cosine - a.cosine || (a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0),
  );
}
