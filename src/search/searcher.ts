import type { Embedder } from '../embed/embedder.js';
import type { ChatModel } from '../llm/chat-model.js';
import { EngramError } from '../model/errors.js';
import type { Scope } from '../model/scope.js';
import type { LexicalWeights } from '../recall/lexical-weights.js';
import { ENGRAM_PROFILE, type RecallProfileSpec } from '../recall/recall-profile.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { CjkSegmenter } from './channels/cjk-segmenter.js';
import { extractKeywordTerms } from './channels/keyword-terms.js';
import type { WebSearchProvider } from './internet/web-result.js';
import { webResultToMemory } from './internet/web-to-memory.js';
import { decomposeQuery } from './plan/decompose-query.js';
import { planFast } from './plan/fast-plan.js';
import { planFine } from './plan/fine-plan.js';
import type { ParsedGoal, PlanInfo } from '../model/parsed-goal.js';
import { embedQueryTexts, queryTexts } from './plan/query-vectors.js';
import { dedupeByText } from './post/dedupe-by-text.js';
import { mmrSelect } from './post/mmr.js';
import { removeNearDuplicates } from './post/near-duplicates.js';
import { trimByType } from './post/type-buckets.js';
import { DEFAULT_BUCKET_LIMITS, type BucketLimits } from '../model/bucket-limits.js';
import { deepSearch } from './reason/deep-search.js';
import { selectMemories } from './reason/memory-reasoner.js';
import { RerankerRegistry } from './rank/reranker-registry.js';
import { mergeCandidates, type SearchCandidate } from './search-candidate.js';
import type { SearchOptions } from '../model/search-options.js';
import { selectPaths, type PathSpec } from './search-paths.js';
import type { SearchHit, SearchPlan, SearchResult, SearchTimings } from '../model/search-result.js';
import { rankCandidates, runPath, type PathInputs } from './run-path.js';
import { cosine } from '../vector/cosine.js';

/** What a {@link Searcher} is built from. Everything but store and embedder is optional. */
export interface SearcherDeps {
  store: MemoryStore;
  embedder: Embedder;
  /** Needed by fine and deep mode, decomposition and the reasoner; without it they fall back to fast / skip. */
  llm?: ChatModel | undefined;
  /** @default a registry with `noop` and `cosine-local` */
  rerankers?: RerankerRegistry | undefined;
  /** Web search providers, queried in parallel when a search asks for internet results. */
  web?: WebSearchProvider[] | undefined;
  /** May the caller read this collection of this scope? Collections it may not are never touched. @default allow all */
  canRead?: ((scope: Scope, collection: string) => boolean | Promise<boolean>) | undefined;
  /** Records use of returned memories, called in the background after a search. */
  recordUsage?: ((tenant: string, ids: string[]) => void) | undefined;
  /** The fusion profile (tokenizer, BM25). @default ENGRAM_PROFILE */
  profile?: RecallProfileSpec | undefined;
  /** @default the profile's own (`profile.resolveWeights({})`: 0.5 / 0.5 for ENGRAM_PROFILE) */
  weights?: LexicalWeights | undefined;
  segmenter?: CjkSegmenter | undefined;
  /** Monotonic ms. @default performance.now */
  now?: (() => number) | undefined;
  /** Wall clock (web items' createdAt). @default () => new Date() */
  clock?: (() => Date) | undefined;
}

function addTimes(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/**
 * The searcher of seed 003 as one pipeline over the core recall: plan (fast / fine / deep,
 * decomposition, one embedding batch) → paths over memory types in parallel, each running its
 * channels in parallel and ranking with the core recall fusion then a reranker → merge by id →
 * dedupe, near-duplicates, MMR, per-type buckets, threshold → optional reasoner → hits with the
 * explanation of every score, the plan, and per-stage timings.
 */
export class Searcher {
  private readonly deps: SearcherDeps;
  private readonly rerankers: RerankerRegistry;
  private readonly now: () => number;

  constructor(deps: SearcherDeps) {
    this.deps = deps;
    this.rerankers = deps.rerankers ?? new RerankerRegistry();
    this.now = deps.now ?? (() => performance.now());
  }

  /** Names of the registered rerankers. */
  rerankerNames(): string[] {
    return this.rerankers.names();
  }

  /** Runs one search. */
  async search(query: string, options: SearchOptions): Promise<SearchResult> {
    const start = this.now();
    const mode = options.mode ?? 'fast';
    if (!['fast', 'fine', 'deep'].includes(mode)) {
      throw new EngramError('INVALID_INPUT', 'mode must be one of: fast, fine, deep', { details: { field: 'mode' } });
    }
    const topK = options.topK ?? 10;
    if (!Number.isInteger(topK) || topK < 1 || topK > 1000) {
      throw new EngramError('INVALID_LIMIT', 'topK must be an integer from 1 to 1000', { details: { field: 'topK' } });
    }
    const rerankerName = options.reranker ?? 'noop';
    const reranker = this.rerankers.get(rerankerName);
    const degraded: Record<string, string> = {};
    const { llm } = this.deps;

    // 1. Plan.
    const planStart = this.now();
    const wantInternet = options.internet === true || options.internet === 'always';
    const decompose = (options.decompose ?? mode === 'deep') && llm !== undefined;
    const [planned, decomposition] = await Promise.all([
      mode !== 'fast' && llm
        ? planFine(llm, query, { ...options, internetSearch: wantInternet, segmenter: this.deps.segmenter })
        : Promise.resolve({
            goal: planFast(query, { fastGraph: options.fastGraph, internetSearch: wantInternet, context: options.context, segmenter: this.deps.segmenter }),
            info: { mode: 'fast', fallback: mode !== 'fast' ? 'no LLM configured' : undefined } satisfies PlanInfo,
          }),
      decompose && llm ? decomposeQuery(llm, query, { signal: options.signal }) : Promise.resolve(undefined),
    ]);
    let goal: ParsedGoal = planned.goal;
    const info: PlanInfo = planned.info;
    if (info.fallback) degraded.plan = info.fallback;
    if (decomposition?.error) degraded.decompose = decomposition.error;
    if (options.internet === 'always') goal = { ...goal, internetSearch: true };
    if (options.internet === false || options.internet === undefined) goal = { ...goal, internetSearch: false };
    const subQuestions = decomposition?.isComplex ? decomposition.questions : [];
    const texts = queryTexts(goal, subQuestions);
    const paths = selectPaths(options.types, options.paths);
    // Keyword terms feed only the full-text channel; skip the segmenter when nothing runs it.
    const useFulltext = options.fulltext ?? options.fastGraph ?? false;
    const needKeywords = useFulltext || paths.some((p) => p.name === 'keyword');
    const keywordsOf = (text: string): string[] => (needKeywords ? extractKeywordTerms(text, { segmenter: this.deps.segmenter }) : []);
    const keywordTerms = keywordsOf(goal.rephrasedQuery);
    const planMs = this.now() - planStart;

    // 2. One embedding batch.
    const embedStart = this.now();
    const vectors = await embedQueryTexts(this.deps.embedder, texts, options.signal);
    const embedMs = this.now() - embedStart;

    // 3. Collections the caller may read.
    const { searched, denied } = await this.collections(options);
    const webWanted =
      goal.internetSearch && (this.deps.web?.length ?? 0) > 0 && (!options.types || options.types.includes('OuterMemory')) && (!options.paths || options.paths.includes('internet'));
    if (wantInternet && (this.deps.web?.length ?? 0) === 0) degraded.internet = 'no web search provider configured';
    const limits: BucketLimits = { ...DEFAULT_BUCKET_LIMITS, ...options.bucketLimits, topK };
    const pathTimings: Record<string, number> = {};
    const channelTimings: Record<string, number> = {};

    const baseInputs = (scope: Scope, collection: string | null): PathInputs => ({
      store: this.deps.store,
      model: this.deps.embedder.model,
      scope,
      collection,
      goal,
      queryTexts: texts,
      queryVectors: vectors,
      keywordTerms,
      priority: options.priority,
      boost: options.boost,
      profile: this.deps.profile ?? ENGRAM_PROFILE,
      weights: this.deps.weights ?? (this.deps.profile ?? ENGRAM_PROFILE).resolveWeights({}),
      reranker,
      fulltext: useFulltext,
      signal: options.signal,
      now: this.now,
    });

    const retrieve = async (stageGoal: ParsedGoal, stageTexts: string[], stageVectors: Float32Array[], stageKeywords: string[], stage: number): Promise<SearchCandidate[]> => {
      const tasks: Array<() => Promise<SearchCandidate[]>> = [];
      for (const collection of searched) {
        const scope: Scope = collection === null ? options.scope : { ...options.scope, collection };
        const inputs: PathInputs = { ...baseInputs(scope, collection), goal: stageGoal, queryTexts: stageTexts, queryVectors: stageVectors, keywordTerms: stageKeywords };
        for (const spec of paths) tasks.push(() => this.timedPath(spec, limits[spec.bucket], inputs, pathTimings, channelTimings, degraded));
        if (webWanted && collection === searched[0]) {
          tasks.push(() => this.internetPath(topK, inputs, pathTimings, degraded));
        }
      }
      let lists: SearchCandidate[][];
      if (options.sequential) {
        lists = [];
        for (const task of tasks) lists.push(await task());
      } else lists = await Promise.all(tasks.map((t) => t()));
      const merged = mergeCandidates(lists);
      for (const c of merged) c.stage ??= stage;
      return merged;
    };

    const pathsStart = this.now();
    let candidates = await retrieve(goal, texts, vectors, keywordTerms, 0);
    const pathsMs = this.now() - pathsStart;

    // 4. Post-processing.
    const postStart = this.now();
    candidates = await this.postProcess(candidates, options, limits);
    let postMs = this.now() - postStart;

    // 5. Deep search.
    let deepMs = 0;
    let stages: SearchPlan['stages'];
    const rewrites = new Map<string, string>();
    if (mode === 'deep') {
      if (!llm) degraded.deep = 'no LLM configured';
      else {
        const deepStart = this.now();
        const outcome = await deepSearch(
          llm,
          goal.rephrasedQuery,
          candidates,
          async (phrase, stage) => {
            const stageGoal: ParsedGoal = { ...goal, rephrasedQuery: phrase, memories: [phrase], keys: [], tags: [] };
            const [v] = await embedQueryTexts(this.deps.embedder, [phrase], options.signal);
            return retrieve(stageGoal, [phrase], [v as Float32Array], keywordsOf(phrase), stage);
          },
          (lists) => mergeCandidates(lists),
          { stages: options.deepStages, rewrite: options.deepRewrite, signal: options.signal },
        );
        stages = outcome.stages;
        outcome.errors.forEach((e, i) => (degraded[`deep.${i}`] = e));
        for (const [id, text] of outcome.rewrites) rewrites.set(id, text);
        const postAgain = this.now();
        candidates = await this.postProcess(outcome.hits, options, limits);
        postMs += this.now() - postAgain;
        deepMs = this.now() - deepStart;
      }
    }

    // 6. Reasoner.
    let reasonMs = 0;
    if (options.reason) {
      if (!llm) degraded.reason = 'no LLM configured';
      else {
        const reasonStart = this.now();
        try {
          const ids = await selectMemories(llm, query, candidates.map((c) => c.memory), { signal: options.signal });
          const keep = new Set(ids);
          candidates = candidates.filter((c) => keep.has(c.memory.id));
        } catch (error: unknown) {
          degraded.reason = error instanceof Error ? error.message : String(error);
        }
        reasonMs = this.now() - reasonStart;
      }
    }

    const hits: SearchHit[] = candidates.map((c) => ({
      memory: c.memory,
      relevance: c.score,
      collection: c.collection,
      explanation: {
        paths: [...c.paths].sort(),
        channels: c.channels,
        cosine: c.cosine,
        bm25: c.bm25,
        lexicalWeight: c.lexicalWeight,
        fused: c.fused,
        rerank: c.rerank,
        boost: c.boost,
        stage: c.stage,
      },
      rewritten: rewrites.get(c.memory.id),
    }));
    this.recordUsage(options.scope.tenant, hits);
    const timings: SearchTimings = {
      planMs,
      embedMs,
      pathsMs,
      paths: pathTimings,
      channels: channelTimings,
      postMs,
      reasonMs,
      deepMs,
      totalMs: this.now() - start,
    };
    return {
      query,
      hits,
      plan: {
        mode,
        goal,
        info,
        queryTexts: texts,
        subQuestions,
        keywordTerms,
        paths: [...paths.map((p) => p.name), ...(webWanted ? ['internet'] : [])],
        reranker: rerankerName,
        stages,
      },
      timings,
      collections: { searched, denied },
      degraded,
    };
  }

  private async collections(options: SearchOptions): Promise<{ searched: Array<string | null>; denied: string[] }> {
    const requested = options.collections ?? (options.scope.collection !== undefined ? [options.scope.collection] : undefined);
    if (!requested) return { searched: [null], denied: [] };
    const searched: string[] = [];
    const denied: string[] = [];
    for (const c of [...new Set(requested)]) {
      const allowed = this.deps.canRead ? await this.deps.canRead(options.scope, c) : true;
      (allowed ? searched : denied).push(c);
    }
    return { searched, denied };
  }

  private async timedPath(
    spec: PathSpec,
    k: number,
    inputs: PathInputs,
    pathTimings: Record<string, number>,
    channelTimings: Record<string, number>,
    degraded: Record<string, string>,
  ): Promise<SearchCandidate[]> {
    const start = this.now();
    try {
      const outcome = await runPath(spec, k, inputs);
      addTimes(channelTimings, outcome.channelTimings);
      Object.assign(degraded, outcome.errors);
      return outcome.candidates;
    } catch (error: unknown) {
      degraded[`path.${spec.name}`] = error instanceof Error ? error.message : String(error);
      return [];
    } finally {
      addTimes(pathTimings, { [spec.name]: this.now() - start });
    }
  }

  private async internetPath(
    k: number,
    inputs: PathInputs,
    pathTimings: Record<string, number>,
    degraded: Record<string, string>,
  ): Promise<SearchCandidate[]> {
    const start = this.now();
    try {
      const providers = this.deps.web ?? [];
      const settled = await Promise.allSettled(providers.map((p) => p.search({ query: inputs.goal.rephrasedQuery, limit: 2 * k, signal: inputs.signal })));
      const at = (this.deps.clock ?? (() => new Date()))().toISOString();
      const byId = new Map<string, ReturnType<typeof webResultToMemory>>();
      settled.forEach((s, i) => {
        if (s.status === 'rejected') {
          degraded[`internet.${providers[i]?.name ?? i}`] = s.reason instanceof Error ? s.reason.message : String(s.reason);
          return;
        }
        for (const r of s.value) {
          const m = webResultToMemory(r, inputs.scope, at);
          if (!byId.has(m.id)) byId.set(m.id, m);
        }
      });
      const memories = [...byId.values()];
      if (memories.length === 0) return [];
      const vectors = await this.deps.embedder.embed(memories.map((m) => m.text), { signal: inputs.signal });
      const found = memories.map((memory, i) => {
        let best = 0;
        inputs.queryVectors.forEach((q, j) => {
          const c = cosine(q, vectors[i] as Float32Array);
          if (j === 0 || c > best) best = c;
        });
        return { memory, channels: { internet: 1 }, cosine: best };
      });
      return await rankCandidates(inputs, 'internet', found, k);
    } catch (error: unknown) {
      degraded['path.internet'] = error instanceof Error ? error.message : String(error);
      return [];
    } finally {
      addTimes(pathTimings, { internet: this.now() - start });
    }
  }

  private async postProcess(candidates: SearchCandidate[], options: SearchOptions, limits: BucketLimits): Promise<SearchCandidate[]> {
    let out = [...candidates].sort((a, b) => b.score - a.score);
    if (options.dedupe !== false) out = dedupeByText(out);
    const threshold = options.threshold ?? 0;
    out = out.filter((c) => c.score >= threshold);
    const needVectors = options.nearDuplicateThreshold !== undefined || options.mmrLambda !== undefined;
    if (needVectors) {
      const vectors = await this.deps.store.getVectors(
        options.scope.tenant,
        out.filter((c) => !c.memory.id.startsWith('web:')).map((c) => c.memory.id),
      );
      if (options.nearDuplicateThreshold !== undefined) out = removeNearDuplicates(out, vectors, options.nearDuplicateThreshold);
      if (options.mmrLambda !== undefined) out = mmrSelect(out, vectors, out.length, options.mmrLambda);
      return trimByTypeKeepingOrder(out, limits);
    }
    return trimByType(out, limits);
  }

  private recordUsage(tenant: string, hits: SearchHit[]): void {
    const ids = hits.filter((h) => !h.memory.id.startsWith('web:')).map((h) => h.memory.id);
    if (ids.length === 0 || !this.deps.recordUsage) return;
    this.deps.recordUsage(tenant, ids);
  }
}

/** Per-type trimming that keeps the given (MMR) order instead of re-sorting by score. */
function trimByTypeKeepingOrder(hits: SearchCandidate[], limits: BucketLimits): SearchCandidate[] {
  const kept = new Set(trimByType(hits.map((h, i) => ({ memory: h.memory, score: -i, h })), limits).map((x) => x.h));
  return hits.filter((h) => kept.has(h));
}
