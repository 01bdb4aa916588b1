import type { Embedder } from '../../src/embed/embedder.js';
import type { EvalCase } from '../../src/eval/eval-case.js';
import type { Memory } from '../../src/model/memory.js';
import type { Scope } from '../../src/model/scope.js';
import { candidatePoolSize } from '../../src/recall/candidate-pool.js';
import { runRecallChannels } from '../../src/recall/recall-channels.js';
import { mergeChannels, scoreLexicalOnly } from '../../src/recall/recall-pool.js';
import { ENGRAM_PROFILE } from '../../src/recall/recall-profile.js';
import type { MemoryStore } from '../../src/store/memory-store.js';

/** Every memory of a scope, page by page. */
export async function listAll(store: MemoryStore, scope: Scope): Promise<Memory[]> {
  const out: Memory[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ scope }, { limit: 1000, cursor });
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/** One candidate of a real recall pool: the stored memory and its cosine with the query. */
export interface PoolMember {
  memory: Memory;
  cosine: number;
}

/** A case with the real pool of Engram's default recall at each cut-off, and every memory's cosine. */
export interface PooledCase {
  case: EvalCase;
  /** Group for cross-validation (the LoCoMo conversation; one group for hand-written cases). */
  group: string;
  query: string;
  pools: Map<number, PoolMember[]>;
  /** Cosine of every memory of the case's scope, by id (for rankers that look beyond the pool). */
  cosineOf: Map<string, number>;
}

/**
 * Builds, for every case and cut-off k, the candidate pool Engram's default recall ranks: the
 * dense pool and the corpus lexical channel of `recall(limit = k)`, merged, cosines for the
 * lexical-only candidates — the recall's own steps (src/recall), stopped before the ranking. Every
 * ranking variant then ranks the very same pools, so differences are the ranking's alone.
 */
export async function buildPools(
  store: MemoryStore,
  embedder: Embedder,
  cases: readonly EvalCase[],
  options: { tenant: string; ks: readonly number[]; groupOf: (c: EvalCase) => string },
): Promise<PooledCase[]> {
  const out: PooledCase[] = [];
  const rowsByScope = new Map<string, Map<string, Memory>>();
  const vectors = await embedder.embed(cases.map((c) => c.query));
  for (const [i, c] of cases.entries()) {
    const scope: Scope = { tenant: options.tenant, ...c.scope };
    const filter = { scope };
    const vector = vectors[i] as Float32Array;
    const key = JSON.stringify(scope);
    let rows = rowsByScope.get(key);
    if (rows === undefined) rowsByScope.set(key, (rows = new Map((await listAll(store, scope)).map((m) => [m.id, m]))));
    const all = await store.denseSearch({ filter, vector, model: embedder.model, limit: rows.size });
    const pools = new Map<number, PoolMember[]>();
    for (const k of options.ks) {
      const densePool = candidatePoolSize(k, Number.MAX_SAFE_INTEGER, true);
      const terms = [...new Set(ENGRAM_PROFILE.queryTerms(c.query))];
      const channels = await runRecallChannels(
        store,
        {
          filter,
          queryVector: vector,
          model: embedder.model,
          densePool,
          lexicalTerms: terms,
          lexicalPool: terms.length > 0 ? densePool : 0,
        },
        () => 0,
      );
      const { byId, lexicalOnly } = mergeChannels(channels);
      await scoreLexicalOnly(store, { filter, queryVector: vector, model: embedder.model }, byId, lexicalOnly);
      const members = [...byId.values()].flatMap((cand) => {
        const memory = rows?.get(cand.id);
        return memory === undefined ? [] : [{ memory, cosine: cand.cosine }];
      });
      pools.set(k, members);
    }
    out.push({
      case: c,
      group: options.groupOf(c),
      query: c.query,
      pools,
      cosineOf: new Map(all.map((r) => [r.id, r.cosine])),
    });
  }
  return out;
}
