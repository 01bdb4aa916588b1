import type { ChatModel } from '../../llm/chat-model.js';
import type { ParsedGoal, PlanInfo } from '../../model/parsed-goal.js';
import type { SearchMode, SearchOptions } from '../../model/search-options.js';
import type { CjkSegmenter } from '../channels/cjk-segmenter.js';
import { extractKeywordTerms } from '../channels/keyword-terms.js';
import { selectPaths, type PathSpec } from '../paths/search-paths.js';
import { decomposeQuery } from './decompose-query.js';
import { planFast } from './fast-plan.js';
import { planFine } from './fine-plan.js';
import { queryTexts } from './query-vectors.js';

/** What {@link planSearch} decides before anything is retrieved. */
export interface SearchPlanning {
  goal: ParsedGoal;
  info: PlanInfo;
  subQuestions: string[];
  /** The texts embedded in the search's one embedding batch. */
  queryTexts: string[];
  /** The local paths that run. */
  paths: PathSpec[];
  /** Whether the internet path runs. */
  web: boolean;
  /** Whether scope paths run the full-text channel. */
  fulltext: boolean;
  /** Keyword terms of the rephrased query (empty when no path runs the full-text channel). */
  keywordTerms: string[];
  /** Keyword terms of any text, e.g. a deep-search phrase; empty when no path needs them. */
  keywordsOf: (text: string) => string[];
}

/** What planning needs besides the query and its options. */
export interface SearchPlanDeps {
  /** Fine and deep planning and decomposition need it; without it they fall back to fast / skip. */
  llm?: ChatModel | undefined;
  segmenter?: CjkSegmenter | undefined;
  /** How many web search providers are configured. */
  webProviders: number;
}

/**
 * Plans one search of the multi-path searcher: the goal (fast, or fine with an LLM, with query
 * decomposition in parallel), the texts to embed, the paths that run and the full-text keyword
 * terms. What fell back is written into `degraded` (`plan`, `decompose`, `internet`).
 */
export async function planSearch(
  query: string,
  options: SearchOptions,
  mode: SearchMode,
  deps: SearchPlanDeps,
  degraded: Record<string, string>,
): Promise<SearchPlanning> {
  const wantInternet = options.internet === true || options.internet === 'always';
  const { goal, info, subQuestions } = await planGoal(query, options, mode, deps, wantInternet, degraded);
  const paths = selectPaths(options.types, options.paths);
  // Keyword terms feed only the full-text channel; skip the segmenter when nothing runs it.
  const fulltext = options.fulltext ?? options.fastGraph ?? false;
  const needKeywords = fulltext || paths.some((p) => p.name === 'keyword');
  const keywordsOf = (text: string): string[] =>
    needKeywords ? extractKeywordTerms(text, { segmenter: deps.segmenter }) : [];
  const web =
    goal.internetSearch &&
    deps.webProviders > 0 &&
    (!options.types || options.types.includes('OuterMemory')) &&
    (!options.paths || options.paths.includes('internet'));
  if (wantInternet && deps.webProviders === 0) degraded.internet = 'no web search provider configured';
  return {
    goal,
    info,
    subQuestions,
    queryTexts: queryTexts(goal, subQuestions),
    paths,
    web,
    fulltext,
    keywordTerms: keywordsOf(goal.rephrasedQuery),
    keywordsOf,
  };
}

/**
 * The goal and the sub-questions, from one planner call and one decomposition call run in
 * parallel. `internet: 'always'` forces web results on, an unset or false `internet` off,
 * whatever the planner said.
 */
async function planGoal(
  query: string,
  options: SearchOptions,
  mode: SearchMode,
  { llm, segmenter }: SearchPlanDeps,
  wantInternet: boolean,
  degraded: Record<string, string>,
): Promise<{ goal: ParsedGoal; info: PlanInfo; subQuestions: string[] }> {
  const decompose = (options.decompose ?? mode === 'deep') && llm !== undefined;
  const [planned, decomposition] = await Promise.all([
    mode !== 'fast' && llm
      ? planFine(llm, query, { ...options, internetSearch: wantInternet, segmenter })
      : Promise.resolve({
          goal: planFast(query, {
            fastGraph: options.fastGraph,
            internetSearch: wantInternet,
            context: options.context,
            segmenter,
          }),
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
  return { goal, info, subQuestions: decomposition?.isComplex ? decomposition.questions : [] };
}
