import type { Embedder } from '../embed/embedder.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { SearchOptions } from '../model/search-options.js';
import type { SearchHit, SearchPlan, SearchResult } from '../model/search-result.js';
import type { LexicalWeights } from '../recall/lexical-weights.js';
import type { PoolDocument } from '../text/pool-document.js';
import { ENGRAM_PROFILE, type RecallProfileSpec } from '../recall/recall-profile.js';
import { TokenCache } from '../recall/token-cache.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { CjkSegmenter } from './channels/cjk-segmenter.js';
import type { WebSearchProvider } from './internet/web-result.js';
import { isWebMemoryId } from './internet/web-to-memory.js';
import { retrieveStage } from './paths/retrieve-stage.js';
import type { SearchCandidate } from './paths/search-candidate.js';
import type { StageContext } from './paths/stage-context.js';
import { planSearch, type SearchPlanning } from './plan/plan-search.js';
import { embedQueryTexts } from './plan/query-vectors.js';
import { postProcess } from './post/post-process.js';
import { RerankerRegistry } from './rank/reranker-registry.js';
import { readableCollections, type CanRead } from './readable-collections.js';
import { keepSelected } from './reason/keep-selected.js';
import { resolveSearchSettings, type SearchSettings } from './resolve-search-settings.js';
import { runDeepSearch } from './run-deep-search.js';
import { timed } from './timed.js';
import { toSearchHits } from './to-search-hits.js';
import { withholdFlagged } from '../recall/withhold-flagged.js';
import { memoryFlag } from '../model/memory-flag.js';
import { resolveValidity, type ResolvedValidity } from '../model/resolve-validity.js';
import { withValidity } from '../model/distinct-hits.js';

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
  canRead?: CanRead | undefined;
  /** Records use of returned memories, called in the background after a search. */
  recordUsage?: ((tenant: string, ids: string[]) => void) | undefined;
  /** The fusion profile (tokenizer, BM25). @default ENGRAM_PROFILE */
  profile?: RecallProfileSpec | undefined;
  /** Candidates' pool documents reused across searches (share the core recall's). @default a cache of the searcher's own */
  tokenCache?: TokenCache | undefined;
  /** @default the profile's own (`profile.resolveWeights({})`: 0.5 / 0.5 for ENGRAM_PROFILE) */
  weights?: LexicalWeights | undefined;
  segmenter?: CjkSegmenter | undefined;
  /** Monotonic ms. @default performance.now */
  now?: (() => number) | undefined;
  /** Wall clock (web items' createdAt). @default () => new Date() */
  clock?: (() => Date) | undefined;
}

/** What the deep-search step leaves in the result. */
interface DeepStep {
  candidates: SearchCandidate[];
  stages: SearchPlan['stages'];
  rewrites: ReadonlyMap<string, string>;
  /** Time of the second post-processing, counted in `postMs`. */
  postMs: number;
  deepMs: number;
}

/** The caller's precomputed vector of the query, as float32 (the facade has checked it). */
function givenQueryVector(query: string, options: SearchOptions): { query: string; vector: Float32Array } | undefined {
  const { vector } = options;
  if (vector === undefined) return undefined;
  return { query, vector: vector instanceof Float32Array ? vector : Float32Array.from(vector) };
}

/** The deep step of a search that runs none. */
const NO_DEEP_STEP: Omit<DeepStep, 'candidates'> = { stages: undefined, rewrites: new Map(), postMs: 0, deepMs: 0 };

/**
 * The multi-path searcher as one pipeline over the core recall, in named steps:
 * settings → plan (fast / fine / deep goal, decomposition, paths) → one embedding batch →
 * readable collections → a retrieval stage (every path over every collection, each running its
 * channels and ranking with the core recall fusion then a reranker; merged by id) → post-processing
 * (dedupe, threshold, near-duplicates, MMR, per-type buckets) → optional deep search (more stages,
 * post-processed again) → optional reasoner → hits with the explanation of every score, the plan,
 * and per-stage timings.
 */
export class Searcher {
  private readonly deps: SearcherDeps;
  private readonly rerankers: RerankerRegistry;
  private readonly now: () => number;
  private readonly tokenCache: TokenCache;

  constructor(deps: SearcherDeps) {
    this.deps = deps;
    this.rerankers = deps.rerankers ?? new RerankerRegistry();
    this.now = deps.now ?? (() => performance.now());
    this.tokenCache = deps.tokenCache ?? new TokenCache();
  }

  /** Names of the registered rerankers. */
  rerankerNames(): string[] {
    return this.rerankers.names();
  }

  /** Runs one search. */
  async search(query: string, options: SearchOptions): Promise<SearchResult> {
    const start = this.now();
    const settings = resolveSearchSettings(options, this.rerankers);
    const degraded: Record<string, string> = {};
    const { llm, segmenter, embedder } = this.deps;
    const planDeps = { llm, segmenter, webProviders: this.deps.web?.length ?? 0 };
    const [planning, planMs] = await timed(this.now, () =>
      planSearch(query, options, settings.mode, planDeps, degraded),
    );
    const [vectors, embedMs] = await timed(this.now, () =>
      embedQueryTexts(embedder, planning.queryTexts, options.signal, givenQueryVector(query, options)),
    );
    const collections = await readableCollections(options, this.deps.canRead);
    const validity = resolveValidity(options, this.deps.clock ?? (() => new Date()));
    const context = this.stageContext(options, settings, planning, collections.searched, degraded, validity);
    const firstStage = {
      goal: planning.goal,
      queryTexts: planning.queryTexts,
      queryVectors: vectors,
      keywordTerms: planning.keywordTerms,
    };
    const [retrieved, pathsMs] = await timed(this.now, () => retrieveStage(context, firstStage, 0));
    // Flagged memories (instructions) leave before post-processing: no deep stage or reasoner sees them.
    const withheld = new Map<string, SearchCandidate>();
    const post = (candidates: SearchCandidate[]): Promise<SearchCandidate[]> =>
      postProcess(admitted(candidates, options.includeFlagged === true, withheld), options, settings.limits, (ids) =>
        this.deps.store.getVectors(
          options.scope.tenant,
          ids.filter((id) => !isWebMemoryId(id)),
        ),
      );
    const [processed, postMs] = await timed(this.now, () => post(retrieved));
    const deep =
      settings.mode === 'deep'
        ? await this.deepStep(context, planning, processed, options, post)
        : { ...NO_DEEP_STEP, candidates: processed };
    const [candidates, reasonMs] = options.reason
      ? await this.reasonStep(query, deep.candidates, options, degraded)
      : [deep.candidates, 0];

    // With superseded memories included, each hit says how it stands at the search's instant.
    const ranked = withholdFlagged(toSearchHits(candidates, deep.rewrites), true).shown;
    const hits = validity.includeSuperseded ? withValidity(ranked, validity.at) : ranked;
    this.recordUsage(options.scope.tenant, hits);
    const best = [...withheld.values()].sort((a, b) => b.score - a.score).slice(0, settings.topK);
    return {
      query,
      hits,
      withheld: withholdFlagged(toSearchHits(best, deep.rewrites), true).shown,
      plan: {
        mode: settings.mode,
        goal: planning.goal,
        info: planning.info,
        queryTexts: planning.queryTexts,
        subQuestions: planning.subQuestions,
        keywordTerms: planning.keywordTerms,
        paths: [...planning.paths.map((p) => p.name), ...(planning.web ? ['internet'] : [])],
        reranker: settings.rerankerName,
        stages: deep.stages,
      },
      timings: {
        planMs,
        embedMs,
        pathsMs,
        paths: context.pathTimings,
        channels: context.channelTimings,
        postMs: postMs + deep.postMs,
        reasonMs,
        deepMs: deep.deepMs,
        totalMs: this.now() - start,
      },
      collections,
      degraded,
    };
  }

  /** What every retrieval stage of this search shares. */
  private stageContext(
    options: SearchOptions,
    settings: SearchSettings,
    planning: SearchPlanning,
    collections: Array<string | null>,
    degraded: Record<string, string>,
    validity: ResolvedValidity,
  ): StageContext {
    const { store, embedder } = this.deps;
    const profile = this.deps.profile ?? ENGRAM_PROFILE;
    return {
      store,
      model: embedder.model,
      scope: options.scope,
      validAt: validity.validAt,
      collections,
      paths: planning.paths,
      web: planning.web
        ? { providers: this.deps.web ?? [], embedder, clock: this.deps.clock ?? (() => new Date()) }
        : null,
      topK: settings.topK,
      limits: settings.limits,
      profile,
      documents: this.tokenCache.view<PoolDocument>(profile.name, options.scope.tenant),
      weights: this.deps.weights ?? profile.resolveWeights({}),
      reranker: settings.reranker,
      fulltext: planning.fulltext,
      priority: options.priority,
      boost: options.boost,
      sequential: options.sequential === true,
      storeInOrder: options.sequential ?? store.answersInline === true,
      signal: options.signal,
      now: this.now,
      pathTimings: {},
      channelTimings: {},
      degraded,
    };
  }

  /** Deep mode's further stages; without an LLM they are skipped and the search says so. */
  private async deepStep(
    context: StageContext,
    planning: SearchPlanning,
    processed: SearchCandidate[],
    options: SearchOptions,
    post: (candidates: SearchCandidate[]) => Promise<SearchCandidate[]>,
  ): Promise<DeepStep> {
    const { llm, embedder } = this.deps;
    if (!llm) {
      context.degraded.deep = 'no LLM configured';
      return { ...NO_DEEP_STEP, candidates: processed };
    }
    const [deep, deepMs] = await timed(this.now, () =>
      runDeepSearch(llm, embedder, context, planning, processed, options, post),
    );
    return { ...deep, deepMs };
  }

  /** The reasoner keeps the memories the LLM would use; a failure keeps every hit and is recorded. */
  private async reasonStep(
    query: string,
    candidates: SearchCandidate[],
    options: SearchOptions,
    degraded: Record<string, string>,
  ): Promise<[SearchCandidate[], number]> {
    const { llm } = this.deps;
    if (!llm) {
      degraded.reason = 'no LLM configured';
      return [candidates, 0];
    }
    const start = this.now();
    let kept = candidates;
    try {
      kept = await keepSelected(llm, query, candidates, options.signal);
    } catch (error: unknown) {
      degraded.reason = error instanceof Error ? error.message : String(error);
    }
    return [kept, this.now() - start];
  }

  private recordUsage(tenant: string, hits: SearchHit[]): void {
    const ids = hits.filter((h) => !isWebMemoryId(h.memory.id)).map((h) => h.memory.id);
    if (ids.length === 0 || !this.deps.recordUsage) return;
    this.deps.recordUsage(tenant, ids);
  }
}

/** The candidates not flagged as instructions (all with `include`); the others go to `withheld`, best score per id. */
function admitted(
  candidates: SearchCandidate[],
  include: boolean,
  withheld: Map<string, SearchCandidate>,
): SearchCandidate[] {
  if (include) return candidates;
  return candidates.filter((candidate) => {
    if (memoryFlag(candidate.memory) === null) return true;
    const seen = withheld.get(candidate.memory.id);
    if (seen === undefined || seen.score < candidate.score) withheld.set(candidate.memory.id, candidate);
    return false;
  });
}
