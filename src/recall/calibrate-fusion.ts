import type { Embedder } from '../embed/embedder.js';
import { EngramError } from '../model/errors.js';
import type { Memory } from '../model/memory.js';
import type { MemoryFilter } from '../model/memory-filter.js';
import type { Scope } from '../model/scope.js';
import type { MemoryStore } from '../store/memory-store.js';
import { backgroundPairs, type CalibrationPair } from './calibration-pairs.js';
import { candidatePoolSize } from './candidate-pool.js';
import { textDocument } from '../text/pool-document.js';
import { runRecallChannels } from './recall-channels.js';
import { mergeChannels, scoreLexicalOnly } from './recall-pool.js';
import { ENGRAM_PROFILE } from './recall-profile.js';
import { fuseSpread } from './spread-fusion.js';
import type { LexicalWeights } from './lexical-weights.js';

/** Options of {@link calibrateFusion}. */
export interface CalibrateFusionOptions {
  scope: Scope;
  /** Pairs used at most (spread evenly over the scope). @default 1000 */
  maxPairs?: number | undefined;
  /** Fewer pairs than this and no trust is chosen (`calibrated: false`). @default 30 */
  minPairs?: number | undefined;
  /** Memories read at most. @default 20000 */
  maxMemories?: number | undefined;
  /** Lexical trusts tried. @default 0.05, 0.10, …, 0.95 */
  trusts?: readonly number[] | undefined;
  /** The recall limit whose candidate pool is ranked. @default 20 */
  limit?: number | undefined;
}

/** What {@link calibrateFusion} measured on the store's own pairs. */
export interface FusionCalibration {
  /** The embedding model the pairs were ranked with. */
  model: string;
  pairs: number;
  /** False when the scope had too few pairs: `weights` is then null and the defaults stay. */
  calibrated: boolean;
  /** The chosen lexical trust for every query length (both fields equal), or null. */
  weights: LexicalWeights | null;
  /** MRR of the target within the pool for each trust tried. */
  curve: Array<{ trust: number; mrr: number }>;
  /** MRR of the cosine alone and of BM25 alone, for reference. */
  denseMrr: number;
  lexicalMrr: number;
}

const DEFAULT_TRUSTS = Array.from({ length: 19 }, (_, i) => Math.round((i + 1) * 5) / 100);

async function readScope(store: MemoryStore, scope: Scope, max: number): Promise<Memory[]> {
  const out: Memory[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ scope }, { limit: Math.min(1000, max - out.length), cursor });
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && out.length < max);
  return out;
}

/** 1 / rank of `target` by `score` (descending; ties count against it), 0 when it is not in the pool. */
function reciprocalRankOf(score: ArrayLike<number>, target: number): number {
  if (target < 0) return 0;
  const s = score[target] as number;
  let rank = 1;
  for (let i = 0; i < score.length; i++) if (i !== target && (score[i] as number) >= s) rank += 1;
  return 1 / rank;
}

/** The recall's own candidate pool for one pair, as text documents with cosines (context and speakers left out). */
async function pairPool(
  store: MemoryStore,
  model: string,
  filter: MemoryFilter,
  pair: CalibrationPair,
  vector: Float32Array,
  limit: number,
): Promise<{ tokens: string[][]; cosine: number[]; target: number }> {
  const densePool = candidatePoolSize(limit, Number.MAX_SAFE_INTEGER, true);
  const terms = [...new Set(ENGRAM_PROFILE.queryTerms(pair.query))];
  const channels = await runRecallChannels(
    store,
    {
      filter,
      queryVector: vector,
      model,
      densePool,
      lexicalTerms: terms,
      lexicalPool: terms.length > 0 ? densePool : 0,
    },
    () => 0,
  );
  const { byId, lexicalOnly } = mergeChannels(channels);
  await scoreLexicalOnly(store, { filter, queryVector: vector, model }, byId, lexicalOnly);
  const rows = await store.get(filter.scope.tenant, [...byId.keys()]);
  const kept = rows.filter((m) => m.text !== pair.exclude);
  return {
    tokens: kept.map((m) => ENGRAM_PROFILE.tokenize(m.text)),
    cosine: kept.map((m) => byId.get(m.id)?.cosine ?? 0),
    target: kept.findIndex((m) => m.id === pair.targetId),
  };
}

/**
 * Chooses the default profile's lexical trust for the embedder in use from the store's own data,
 * with no labels: each memory that answers another (its `background`) gives a pair "that turn →
 * this memory"; the pair's query is embedded as a query, the recall's own candidate pool is
 * built, and the spread fusion of cosine and BM25 over the memories' text (context and speakers
 * left out — the context *is* the query) ranks it at each trust. The trust with the best mean
 * reciprocal rank of the targets wins (ties: the one nearest 0.5). A weak embedder ends with a
 * high trust in the words, a strong one with a low trust. Read-only.
 */
export async function calibrateFusion(
  deps: { store: MemoryStore; embedder: Embedder },
  options: CalibrateFusionOptions,
): Promise<FusionCalibration> {
  const { store, embedder } = deps;
  const trusts = options.trusts ?? DEFAULT_TRUSTS;
  if (trusts.length === 0 || trusts.some((t) => !(t >= 0 && t <= 1))) {
    throw new EngramError('INVALID_INPUT', 'trusts must be numbers between 0 and 1', { details: { field: 'trusts' } });
  }
  for (const field of ['maxPairs', 'minPairs', 'maxMemories', 'limit'] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new EngramError('INVALID_INPUT', `${field} must be a positive integer`, { details: { field } });
    }
  }
  const limit = options.limit ?? 20;
  const memories = await readScope(store, options.scope, options.maxMemories ?? 20_000);
  const pairs = backgroundPairs(memories, options.maxPairs ?? 1000);
  const empty = { model: embedder.model, pairs: pairs.length, denseMrr: 0, lexicalMrr: 0 };
  if (pairs.length < (options.minPairs ?? 30)) return { ...empty, calibrated: false, weights: null, curve: [] };
  const vectors = await embedder.embed(
    pairs.map((p) => p.query),
    { role: 'query' },
  );
  const filter: MemoryFilter = { scope: options.scope };
  const sums = new Float64Array(trusts.length);
  let dense = 0;
  let lexical = 0;
  for (const [i, pair] of pairs.entries()) {
    const pool = await pairPool(store, embedder.model, filter, pair, vectors[i] as Float32Array, limit);
    const queryTokens = ENGRAM_PROFILE.tokenize(pair.query);
    const documents = pool.tokens.map((t, j) => ({ ...textDocument(t), cosine: pool.cosine[j] as number }));
    trusts.forEach((w, t) => {
      const fused = fuseSpread(queryTokens, documents, {
        weights: { base: w, short: w },
        bm25: ENGRAM_PROFILE.bm25,
        contextWeight: 0,
      });
      sums[t] = (sums[t] as number) + reciprocalRankOf(fused.fused, pool.target);
      if (t === 0) lexical += reciprocalRankOf(fused.bm25, pool.target);
    });
    dense += reciprocalRankOf(pool.cosine, pool.target);
  }
  const curve = trusts.map((trust, t) => ({ trust, mrr: (sums[t] as number) / pairs.length }));
  const best = curve.reduce((a, b) =>
    b.mrr > a.mrr || (b.mrr === a.mrr && Math.abs(b.trust - 0.5) < Math.abs(a.trust - 0.5)) ? b : a,
  );
  return {
    ...empty,
    calibrated: true,
    weights: { base: best.trust, short: best.trust },
    curve,
    denseMrr: dense / pairs.length,
    lexicalMrr: lexical / pairs.length,
  };
}
