/**
 * The least a fast search over the default paths can cost on a store with grouped searches
 * (SQLite's): the searcher's store calls and fusion, called straight on the store, with no
 * channel, pool, reranker or stage machinery around them. For the bench beside the searcher, which
 * checks that this returns the searcher's hits, in its order, with its scores.
 */
import { DEFAULT_BUCKET_LIMITS, type BucketLimits } from '../../src/model/bucket-limits.js';
import { memoryFlag } from '../../src/model/memory-flag.js';
import type { MemoryType } from '../../src/model/memory-type.js';
import type { Scope } from '../../src/model/scope.js';
import type { SearchHit } from '../../src/model/search-result.js';
import type { LexicalWeights } from '../../src/recall/lexical-weights.js';
import { scorePool } from '../../src/recall/rank-pool.js';
import type { RecallProfileSpec } from '../../src/recall/recall-profile.js';
import { pathPoolSize } from '../../src/search/paths/path-channels.js';
import type { SearchCandidate } from '../../src/search/paths/search-candidate.js';
import { selectPaths } from '../../src/search/paths/search-paths.js';
import { dedupeByText } from '../../src/search/post/dedupe-by-text.js';
import { trimByType } from '../../src/search/post/type-buckets.js';
import { toSearchHits } from '../../src/search/to-search-hits.js';
import type { DenseCandidate, LexicalCandidate, MemoryStore } from '../../src/store/memory-store.js';
import type { RankDocument } from '../../src/text/term-document.js';
import { topK } from '../../src/vector/top-k.js';

/** What {@link lowerBoundSearch} reads with. */
export interface LowerBoundDeps {
  store: MemoryStore;
  scope: Scope;
  /** The embedding space of the stored vectors and the query vector. */
  space: { model: string; dim: number };
  profile: RecallProfileSpec;
  /** The searcher's fusion weights (the facade's `profile.resolveWeights`). */
  weights: LexicalWeights;
}

/** A pool member as the fusion sees it. */
interface Member {
  id: string;
  /** NaN until known: the store gave none with the hit. */
  cosine: number;
  document: RankDocument;
  channels: Record<string, number>;
}

/** One path's share of the search. */
interface LowerBoundPath {
  name: string;
  types: MemoryType[];
  /** Its bucket's size: what the pool keeps, and the floor of its share of a shared list. */
  k: number;
}

/**
 * A fast search of `query` (with `vector`, one query text, default paths, `topK` 10, no reranker,
 * no flagged memories shown) as the least work that gives the searcher's hits: one grouped dense
 * and one grouped lexical search of the scope paths' types at the largest path pool, split by type;
 * the floors of the paths a full shared list left short (one grouped call per channel); the working
 * path's newest rows; the cosines of the rows no hit gave one (one call); each path's pool fused
 * with `scorePool` and cut to its bucket (fused score, cosine, id); the rows of what is kept; then
 * best first, dedupe by text, the per-type buckets and the hits. Nothing else: no channel objects, merges by id across paths, reranker, timings,
 * withheld list or usage.
 *
 * @throws Error when the store has no grouped searches, `newestIds` or `storedCosines`, or leaves a
 * hit without its document (the searcher would then read it: this would then be no lower bound).
 */
export function lowerBoundSearch(deps: LowerBoundDeps): (query: string, vector: Float32Array) => Promise<SearchHit[]> {
  const { store, scope, space, profile, weights } = deps;
  const { denseSearchGroups, lexicalSearchGroups, newestIds, storedCosines } = store;
  if (!denseSearchGroups || !lexicalSearchGroups || !newestIds || !storedCosines)
    throw new Error('the store has no grouped searches, newestIds or storedCosines');
  const limits: BucketLimits = DEFAULT_BUCKET_LIMITS;
  const specs = selectPaths(undefined);
  const paths = (names: (name: string) => boolean): LowerBoundPath[] =>
    specs.filter((s) => names(s.name)).map((s) => ({ name: s.name, types: s.types, k: limits[s.bucket] }));
  const scopePaths = paths((name) => name !== 'working');
  const [working] = paths((name) => name === 'working');
  if (working === undefined) throw new Error('no working path');
  const pathOf = new Map<MemoryType, number>();
  scopePaths.forEach((p, i) => p.types.forEach((t) => pathOf.set(t, i)));
  const types = scopePaths.flatMap((p) => p.types);
  const shared = Math.max(...scopePaths.map((p) => pathPoolSize(p.k)));
  const analyzer = profile.analyzer?.name;
  const { model } = space;

  return async (query, vector) => {
    const filter = { scope, statuses: ['activated' as const], validAt: new Date().toISOString() };
    const terms = [...new Set(profile.queryTerms(query))];
    const vectors = [vector];
    const dense = async (groups: Array<{ types: MemoryType[]; limit: number }>) =>
      denseSearchGroups.call(store, { filter, vector, model, groups, analyzer });
    const lexical = async (groups: Array<{ types: MemoryType[]; limit: number }>) =>
      terms.length === 0
        ? groups.map((): LexicalCandidate[] => [])
        : lexicalSearchGroups.call(store, { filter, terms, groups, space, analyzer, storedCosinesWith: vectors });
    const [denseShared = []] = await dense([{ types, limit: shared }]);
    const [lexicalShared = []] = await lexical([{ types, limit: shared }]);
    const newest = await newestIds.call(store, { ...filter, types: working.types }, pathPoolSize(working.k), {
      analyzer,
      storedCosinesWith: vectors,
      space,
    });
    const denseLists = await withFloors(denseShared, shared, scopePaths, pathOf, dense);
    const lexicalLists = await withFloors(lexicalShared, shared, scopePaths, pathOf, lexical);
    const pools = scopePaths.map((_, i) => pathPool(denseLists[i] ?? [], lexicalLists[i] ?? []));
    pools.push(newest.map((n) => member(n.id, n.storedCosine, n.document, { working: 1 })));
    // The rows the store held rescaled come without a cosine: one call scores them, as in the searcher.
    const unscored: Member[] = [];
    for (const pool of pools) for (const m of pool) if (Number.isNaN(m.cosine)) unscored.push(m);
    if (unscored.length > 0) {
      const ids = [...new Set(unscored.map((m) => m.id))];
      const cosines = await storedCosines.call(store, scope.tenant, ids, vectors);
      for (const m of unscored) m.cosine = cosines.get(m.id) ?? 0;
    }
    const tokens = profile.tokenize(query);
    const kept = [...scopePaths, working].flatMap((path, i) => {
      const pool = pools[i] ?? [];
      return pool.length === 0 ? [] : fusedTop(pool, tokens, path, weights, profile);
    });
    const read = await store.get(
      scope.tenant,
      kept.map((c) => c.member.id),
    );
    const rows = new Map(read.map((m) => [m.id, m]));
    const candidates: SearchCandidate[] = [];
    for (const { member: m, path, bm25, fused, lexicalWeight } of kept) {
      const memory = rows.get(m.id);
      if (!memory || memory.status !== 'activated' || memoryFlag(memory) !== null) continue;
      const paths = new Set([path]);
      const { cosine, channels } = m;
      candidates.push({ memory, collection: null, paths, channels, cosine, bm25, lexicalWeight, fused, score: fused });
    }
    const best = dedupeByText(candidates.sort((a, b) => b.score - a.score)).filter((c) => c.score >= 0);
    return toSearchHits(trimByType(best, limits), new Map());
  };
}

/**
 * The shared hits split by path; a path left with fewer than its `k` while the shared list was
 * full gets its own best `k` instead, from one more grouped call for all such paths.
 */
async function withFloors<H extends DenseCandidate | LexicalCandidate>(
  shared: readonly H[],
  limit: number,
  paths: readonly LowerBoundPath[],
  pathOf: ReadonlyMap<MemoryType, number>,
  search: (groups: Array<{ types: MemoryType[]; limit: number }>) => Promise<H[][]>,
): Promise<H[][]> {
  const lists = paths.map((): H[] => []);
  for (const hit of shared) {
    const i = hit.type === undefined ? undefined : pathOf.get(hit.type);
    if (i === undefined) throw new Error(`hit ${hit.id} came without its type`);
    lists[i]?.push(hit);
  }
  const short = shared.length < limit ? [] : paths.flatMap((p, i) => ((lists[i]?.length ?? 0) < p.k ? [i] : []));
  if (short.length === 0) return lists;
  const floors = await search(short.map((i) => ({ types: paths[i]?.types ?? [], limit: paths[i]?.k ?? 0 })));
  short.forEach((i, j) => (lists[i] = floors[j] ?? []));
  return lists;
}

/** A path's pool: its dense hits, then its lexical hits no dense hit brought. */
function pathPool(dense: readonly DenseCandidate[], lexical: readonly LexicalCandidate[]): Member[] {
  const pool: Member[] = [];
  const byId = new Map<string, Member>();
  for (const hit of dense) {
    const m = member(hit.id, hit.cosine, hit.document, { dense: hit.cosine });
    byId.set(m.id, m);
    pool.push(m);
  }
  for (const hit of lexical) {
    const seen = byId.get(hit.id);
    if (seen !== undefined) seen.channels.bm25 = hit.score;
    else pool.push(member(hit.id, hit.storedCosine, hit.document, { bm25: hit.score }));
  }
  return pool;
}

function member(
  id: string,
  cosine: number | undefined,
  document: RankDocument | undefined,
  channels: Record<string, number>,
): Member {
  if (document === undefined) throw new Error(`hit ${id} came without its document`);
  return { id, cosine: cosine ?? Number.NaN, document, channels };
}

/** The pool's best `k` by fused score, cosine, id, as the searcher cuts it. */
function fusedTop(
  pool: readonly Member[],
  tokens: readonly string[],
  path: LowerBoundPath,
  weights: LexicalWeights,
  profile: RecallProfileSpec,
) {
  const fusion = scorePool(
    tokens,
    pool.map((m) => m.document),
    pool.map((m) => m.cosine),
    { weights, profile },
  );
  const scored = pool.map((m, i) => ({
    member: m,
    path: path.name,
    fused: fusion.fused[i] as number,
    bm25: fusion.bm25[i] as number,
    lexicalWeight: fusion.lexicalWeight,
  }));
  return topK(
    scored,
    path.k,
    (a, b) =>
      b.fused - a.fused ||
      b.member.cosine - a.member.cosine ||
      (a.member.id < b.member.id ? -1 : a.member.id > b.member.id ? 1 : 0),
  );
}
