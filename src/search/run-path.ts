import type { Memory } from '../model/memory.js';
import type { Scope } from '../model/scope.js';
import { candidatePoolSize } from '../recall/candidate-pool.js';
import type { LexicalWeights } from '../recall/lexical-weights.js';
import { poolDocumentOf } from '../recall/pool-document.js';
import { scorePool } from '../recall/rank-pool.js';
import type { RecallProfileSpec } from '../recall/recall-profile.js';
import type { MemoryStore } from '../store/memory-store.js';
import { cosine } from '../vector/cosine.js';
import { topK } from '../vector/top-k.js';
import { runChannels, type MergedCandidate } from './channels/run-channels.js';
import type { ChannelContext } from './channels/search-channel.js';
import type { ParsedGoal } from '../model/parsed-goal.js';
import { applyBoost } from './rank/boost.js';
import { type BoostContext } from '../model/boost-context.js';
import type { Reranker } from './rank/reranker.js';
import type { SearchCandidate } from './search-candidate.js';
import type { PathSpec } from './search-paths.js';

/** Shared inputs of every path of one search. */
export interface PathInputs {
  store: MemoryStore;
  model: string;
  scope: Scope;
  collection: string | null;
  goal: ParsedGoal;
  queryTexts: string[];
  queryVectors: Float32Array[];
  keywordTerms: string[];
  priority?: Partial<Omit<Scope, 'tenant'>> | undefined;
  boost?: BoostContext | undefined;
  profile: RecallProfileSpec;
  weights: LexicalWeights;
  reranker: Reranker;
  /** Run the full-text channel inside scope paths (the keyword path always runs it). */
  fulltext: boolean;
  signal?: AbortSignal | undefined;
  now: () => number;
}

/** One path's outcome. */
export interface PathOutcome {
  candidates: SearchCandidate[];
  channelTimings: Record<string, number>;
  errors: Record<string, string>;
}

function maxCosine(vector: Float32Array, queries: readonly Float32Array[]): number {
  let best = 0;
  let first = true;
  for (const q of queries) {
    const c = cosine(q, vector);
    if (first || c > best) best = c;
    first = false;
  }
  return best;
}

/**
 * Ranks a path's candidates the way the core recall does — `scorePool`, the profile's fusion (with
 * the best cosine over the query vectors) — then over-fetches `2·topK` by fused score, hands them
 * to the reranker for its `topK`, and applies boosts.
 */
export async function rankCandidates(
  inputs: Pick<PathInputs, 'goal' | 'profile' | 'weights' | 'reranker' | 'boost' | 'collection' | 'signal'>,
  pathName: string,
  found: Array<{ memory: Memory; channels: Record<string, number>; cosine: number }>,
  k: number,
): Promise<SearchCandidate[]> {
  const tokens = inputs.profile.tokenize(inputs.goal.rephrasedQuery);
  const fusion = scorePool(
    tokens,
    found.map((f) => ({ ...poolDocumentOf(f.memory, inputs.profile), cosine: f.cosine })),
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
  const pool = topK(all, 2 * k, (a, b) => b.fused - a.fused || b.cosine - a.cosine || (a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0));
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

/**
 * Runs one local path: its channels in parallel inside `{scope, path types, activated}`,
 * memories and missing vectors loaded, then {@link rankCandidates}.
 */
export async function runPath(spec: PathSpec, k: number, inputs: PathInputs): Promise<PathOutcome> {
  const { store, scope } = inputs;
  const limit = Math.max(2 * k, candidatePoolSize(k, Number.MAX_SAFE_INTEGER, true));
  const context: ChannelContext = {
    store,
    model: inputs.model,
    filter: { scope, types: spec.types, statuses: ['activated'] },
    goal: inputs.goal,
    queryTexts: inputs.queryTexts,
    queryVectors: inputs.queryVectors,
    limit,
    priority: inputs.priority,
    tokenize: inputs.profile.queryTerms,
    keywordTerms: inputs.keywordTerms,
  };
  const channels = spec.name === 'keyword' || inputs.fulltext ? spec.channels : spec.channels.filter((c) => c.name !== 'fulltext');
  const run = await runChannels(channels, context, inputs.now);
  const channelTimings: Record<string, number> = {};
  for (const [name, ms] of Object.entries(run.timings)) channelTimings[name] = ms ?? 0;
  const errors: Record<string, string> = {};
  for (const [name, message] of Object.entries(run.errors)) errors[`${spec.name}.${name}`] = message ?? '';
  if (run.candidates.size === 0) return { candidates: [], channelTimings, errors };

  const entries = [...run.candidates.values()];
  const missing = entries.filter((e) => !e.memory).map((e) => e.id);
  if (missing.length > 0) {
    const loaded = new Map((await store.get(scope.tenant, missing)).map((m) => [m.id, m]));
    for (const e of entries) if (!e.memory) e.memory = loaded.get(e.id);
  }
  const needVectors = entries.filter((e) => e.channels.dense === undefined).map((e) => e.id);
  const vectors = needVectors.length > 0 ? await store.getVectors(scope.tenant, needVectors) : new Map<string, Float32Array>();
  const found = entries
    .filter((e): e is MergedCandidate & { memory: Memory } => e.memory !== undefined && e.memory.status === 'activated')
    .map((e) => {
      const vector = vectors.get(e.id);
      const cos = e.channels.dense ?? (vector ? maxCosine(vector, inputs.queryVectors) : 0);
      return { memory: e.memory, channels: e.channels, cosine: cos };
    });
  return { candidates: await rankCandidates(inputs, spec.name, found, k), channelTimings, errors };
}
