import type { Memory } from '../../model/memory.js';
import type { Scope } from '../../model/scope.js';
import type { PoolDocument } from '../../text/pool-document.js';
import type { RankDocument } from '../../text/term-document.js';
import { readPoolDocuments } from '../../recall/read-pool-documents.js';
import { scorePool, type PoolScores } from '../../recall/rank-pool.js';
import type { TokenCacheView } from '../../recall/token-cache.js';
import { topK } from '../../vector/top-k.js';
import type { MergedCandidate } from '../channels/run-channels.js';
import { COSINE_SLACK, storeCosines, vectorCosines, type StoreCosine } from './candidate-cosines.js';
import type { PathInputs } from './path-inputs.js';
import type { SearchCandidate } from './search-candidate.js';
import type { StagePath } from './stage-channels.js';

/** One path's candidates in one collection. */
export interface PathPool {
  path: StagePath;
  collection: string | null;
  entries: MergedCandidate[];
  /** How many of its best `2·k` the reranker reads (a reranker that keeps the fusion's order needs only `k`). */
  keep: number;
}

/** What ranking a stage's pools needs. */
export interface PoolInputs extends Pick<
  PathInputs,
  'store' | 'model' | 'goal' | 'queryVectors' | 'profile' | 'weights'
> {
  /** The search's scope without its collection: every pool's rows are inside it. */
  scope: Scope;
  /** Reuses candidates' pool documents across searches. @default none */
  documents?: TokenCacheView<PoolDocument> | undefined;
}

/** A pool candidate as the fusion sees it; a cosine that is not `exact` is the store's estimate, or NaN when unknown. */
interface PoolDoc {
  entry: MergedCandidate;
  document: RankDocument;
  cosine: number;
  exact: boolean;
}

interface FusedPool {
  pool: PathPool;
  docs: PoolDoc[];
  fusion: PoolScores;
}

/** A ranked pool member: its document and its exact cosine and fused score. */
interface Ranked {
  doc: PoolDoc;
  index: number;
  cosine: number;
  fused: number;
}

/**
 * Ranks every path pool of a stage exactly as each path alone would (`scorePool`, the profile's
 * fusion, over its pool with the best cosine over the query vectors; the best `2·k` by fused
 * score, cosine, id), with each kind of row read once for all pools:
 * 1. the cosines of the candidates no dense channel scored and no store gave with its hit (SQLite's
 *    lexical channel gives `storedCosine` from its vector cache). The spread fusion weighs the cosine by
 *    its spread over the pool, so every candidate needs the exact one the per-path searcher
 *    computes (`maxCosine` of the stored vector): one vector read (SQLite copies them from its
 *    vector cache) and each pool is fused once. The linear fusion is linear in the cosine: the
 *    store first estimates them (one dense search restricted to their ids per query vector, from
 *    its vector cache), and only candidates whose best possible fused score reaches the `2·k`-th
 *    worst possible one need the exact cosine;
 * 2. pool documents, from the cache or one read (texts, or whole rows for the spread fusion),
 *    found in the cache by the last update a channel, the store's estimate or its texts reported;
 * 3. the memories of the ranked candidates no channel brought and no earlier read returned — one
 *    row read, of the `keep` best of each pool only.
 */
export async function rankStagePools(pools: readonly PathPool[], inputs: PoolInputs): Promise<SearchCandidate[][]> {
  const { store, scope, queryVectors } = inputs;
  const entries: MergedCandidate[] = [];
  for (const pool of pools) for (const entry of pool.entries) entries.push(entry);
  const spread = inputs.profile.fusion === 'spread';
  // The spread fusion needs every exact cosine: an estimate would only tell the rows' last updates.
  const estimates = spread
    ? new Map<string, StoreCosine>()
    : await storeCosines(store, scope, inputs.model, unscoredIds(entries), queryVectors);
  const updates = spread ? await lastUpdates(store, scope.tenant, entries) : null;
  const sources = entries.map((e) => ({
    id: e.id,
    memory: e.memory,
    updatedAt: e.updatedAt ?? updates?.get(e.id) ?? estimates.get(e.id)?.updatedAt,
    document: e.document,
  }));
  const memories = new Map<string, Memory>();
  const documents = await readPoolDocuments(store, scope.tenant, sources, inputs.profile, inputs.documents, memories);
  const queryTokens = inputs.profile.tokenize(inputs.goal.rephrasedQuery);
  const exact = spread
    ? await vectorCosines(store, scope.tenant, unscoredWithDocuments(entries, documents), queryVectors)
    : new Map<string, number>();
  let offset = 0;
  const fused = pools.map((pool) => {
    const own = documents.slice(offset, (offset += pool.entries.length));
    return fusePool(pool, own, spread ? exact : estimates, queryTokens, inputs);
  });
  if (!spread) {
    const needed = new Set(fused.flatMap((f) => needExact(f, 2 * f.pool.path.k)).map((d) => d.entry.id));
    for (const [id, cosine] of await vectorCosines(store, scope.tenant, [...needed], queryVectors))
      exact.set(id, cosine);
  }
  const ranked = fused.map((f) => topOfPool(f, exact, queryTokens.length > 0).slice(0, f.pool.keep));
  const unloaded = new Set(
    ranked
      .flat()
      .filter((r) => !r.doc.entry.memory && !memories.has(r.doc.entry.id))
      .map((r) => r.doc.entry.id),
  );
  if (unloaded.size > 0) for (const m of await store.get(scope.tenant, [...unloaded])) memories.set(m.id, m);
  return ranked.map((members, i) => toCandidates(fused[i] as FusedPool, members, memories));
}

/**
 * The last updates of the candidates that came with neither a memory nor one (from the store's
 * texts, answered from SQLite's lexical index in memory), so their documents can be found in the
 * cache. Empty without `getTexts`: those documents are then read.
 */
async function lastUpdates(
  store: PoolInputs['store'],
  tenant: string,
  entries: readonly MergedCandidate[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ids = [...new Set(entries.filter((e) => !e.memory && e.updatedAt === undefined).map((e) => e.id))];
  if (ids.length === 0 || !store.getTexts) return out;
  for (const t of await store.getTexts(tenant, ids)) out.set(t.id, t.updatedAt);
  return out;
}

/** Ids of the candidates no dense channel scored, each once. */
function unscoredIds(entries: readonly MergedCandidate[]): string[] {
  return [...new Set(entries.filter(unscored).map((e) => e.id))];
}

/** A candidate whose cosine no channel gave: no dense channel scored it, no store gave its `storedCosine`. */
function unscored(entry: MergedCandidate): boolean {
  return entry.channels.dense === undefined && entry.storedCosine === undefined;
}

/** Ids of the candidates no dense channel scored that have a document (the others leave the pool). */
function unscoredWithDocuments(
  entries: readonly MergedCandidate[],
  documents: ReadonlyArray<RankDocument | undefined>,
): string[] {
  const ids = new Set<string>();
  entries.forEach((e, i) => {
    if (unscored(e) && documents[i] !== undefined) ids.add(e.id);
  });
  return [...ids];
}

/**
 * The pool's documents (those that could be read: `documents` follows its entries) and their
 * fusion with the cosines of the candidates no dense channel scored: `exact` ones (every one the
 * spread fusion needs), or the store's estimates (NaN when unknown) to be bounded by {@link needExact}.
 */
function fusePool(
  pool: PathPool,
  documents: ReadonlyArray<RankDocument | undefined>,
  cosines: ReadonlyMap<string, number> | ReadonlyMap<string, StoreCosine>,
  queryTokens: readonly string[],
  inputs: PoolInputs,
): FusedPool {
  const noVectors = inputs.queryVectors.length === 0;
  const docs: PoolDoc[] = [];
  pool.entries.forEach((entry, i) => {
    const document = documents[i];
    if (document === undefined) return;
    const dense = entry.channels.dense;
    // Without query vectors every cosine is 0 (the per-path searcher's `maxCosine` of nothing).
    if (dense !== undefined || noVectors) docs.push({ entry, document, cosine: dense ?? 0, exact: true });
    else if (entry.storedCosine !== undefined) docs.push({ entry, document, cosine: entry.storedCosine, exact: true });
    else {
      const known = cosines.get(entry.id);
      if (typeof known === 'number') docs.push({ entry, document, cosine: known, exact: true });
      else docs.push({ entry, document, cosine: known?.cosine ?? Number.NaN, exact: false });
    }
  });
  return { pool, docs, fusion: fuse(docs, queryTokens, inputs) };
}

function fuse(docs: readonly PoolDoc[], queryTokens: readonly string[], inputs: PoolInputs): PoolScores {
  return scorePool(
    queryTokens,
    docs.map((d) => d.document),
    docs.map((d) => (Number.isNaN(d.cosine) ? 0 : d.cosine)),
    { weights: inputs.weights, profile: inputs.profile },
  );
}

/**
 * The documents whose exact cosine decides whether they are in the pool's top `n`. The fused
 * score is linear in the cosine with slope `denseWeight`, so an estimate within
 * {@link COSINE_SLACK} bounds it within `denseWeight · COSINE_SLACK`: a document whose upper
 * bound is below the `n`-th largest lower bound has `n` documents certainly above it.
 */
function needExact({ docs, fusion }: FusedPool, n: number): PoolDoc[] {
  if (docs.length <= n) return docs.filter((d) => !d.exact);
  const slack = fusion.denseWeight * COSINE_SLACK;
  const low = new Float64Array(docs.length);
  docs.forEach((d, i) => {
    const fused = fusion.fused[i] as number;
    low[i] = d.exact ? fused : Number.isNaN(d.cosine) ? -Infinity : fused - slack;
  });
  const threshold = low.slice().sort()[docs.length - n] as number;
  return docs.filter(
    (d, i) => !d.exact && (Number.isNaN(d.cosine) || (fusion.fused[i] as number) + slack >= threshold),
  );
}

/**
 * The pool's top `2·k` by fused score, cosine, id over the documents with an exact cosine (the
 * others cannot make the cut, see {@link needExact}). `lexical`: the query has tokens, so the
 * fused score is `(1 − w)·cos + w·bm25` (else the cosine alone), as `fuseLinear` computes it.
 */
function topOfPool({ pool, docs, fusion }: FusedPool, exact: ReadonlyMap<string, number>, lexical: boolean): Ranked[] {
  const members: Ranked[] = [];
  docs.forEach((doc, index) => {
    if (doc.exact) members.push({ doc, index, cosine: doc.cosine, fused: fusion.fused[index] as number });
    const cosine = doc.exact ? undefined : exact.get(doc.entry.id);
    if (cosine === undefined) return;
    const bm25 = fusion.bm25[index] as number;
    const fused = lexical ? fusion.denseWeight * cosine + fusion.lexicalWeight * bm25 : cosine;
    members.push({ doc, index, cosine, fused });
  });
  return topK(
    members,
    2 * pool.path.k,
    (a, b) =>
      b.fused - a.fused ||
      b.cosine - a.cosine ||
      (a.doc.entry.id < b.doc.entry.id ? -1 : a.doc.entry.id > b.doc.entry.id ? 1 : 0),
  );
}

/** The ranked members as search candidates (a memory gone or no longer activated since is left out). */
function toCandidates(
  { pool, fusion }: FusedPool,
  members: readonly Ranked[],
  memories: ReadonlyMap<string, Memory>,
): SearchCandidate[] {
  const out: SearchCandidate[] = [];
  for (const { doc, index, cosine, fused } of members) {
    const memory = doc.entry.memory ?? memories.get(doc.entry.id);
    if (!memory || memory.status !== 'activated') continue;
    out.push({
      memory,
      collection: pool.collection,
      paths: new Set([pool.path.spec.name]),
      channels: doc.entry.channels,
      cosine,
      bm25: fusion.bm25[index] as number,
      lexicalWeight: fusion.lexicalWeight,
      fused,
      score: fused,
      // Set by the stage that merges it: present from the start, the object keeps its shape.
      stage: undefined,
    });
  }
  return out;
}
