import type { ApiClient } from './api-client.js';
import type {
  Memory,
  MemoryType,
  RecallHit,
  RecallResponse,
  RequestScope,
  SearchHit,
  SearchRequest,
  SearchResponse,
} from './wire-types.js';

/** How one ranked list is produced: the searcher (`/v1/search`) or the core recall (`/v1/recall`). */
export type EngineSetting =
  | {
      engine: 'search';
      mode: 'fast' | 'fine' | 'deep';
      reranker: string;
      fastGraph: boolean;
      types: MemoryType[];
      limit: number;
      threshold: number | null;
    }
  | { engine: 'recall'; profile: 'engram' | 'seed'; types: MemoryType[]; limit: number; threshold: number | null };

/** One score of a hit. `unit` scores live in [-1, 1]; a `factor` is a multiplier (1 = none). */
export interface ScoreBar {
  name: string;
  value: number;
  kind: 'unit' | 'factor';
}

/** A hit as the page shows it, whichever engine found it. */
export interface ShownHit {
  memory: Memory;
  /** The score the list is ranked by (relevance or fused). */
  score: number;
  bars: ScoreBar[];
  paths: string[];
  /** Channel names, with their score when the engine reports one. */
  channels: Array<{ name: string; score?: number }>;
  notes: string[];
}

/** Everything one run shows. */
export interface Outcome {
  label: string;
  query: string;
  threshold: number;
  hits: ShownHit[];
  cut: ShownHit[];
  /** Plan lines: label and values. */
  plan: Array<[string, string[]]>;
  /** Stage timings in ms, then finer ones (per path, per channel). */
  timings: Array<[string, number]>;
  detailTimings: Array<[string, number]>;
  degraded: Array<[string, string]>;
}

/** A short label of a setting, e.g. `search · fast · cosine-local` or `recall · seed`. */
export function settingLabel(setting: EngineSetting): string {
  return setting.engine === 'search'
    ? `search · ${setting.mode} · ${setting.reranker}${setting.fastGraph ? ' · graph' : ''}`
    : `recall · ${setting.profile}`;
}

function fromSearchHit(hit: SearchHit): ShownHit {
  const e = hit.explanation;
  const bars: ScoreBar[] = [
    { name: 'cosine', value: e.cosine, kind: 'unit' },
    { name: 'BM25', value: e.bm25, kind: 'unit' },
  ];
  if (e.channels.graph !== undefined) bars.push({ name: 'graph', value: e.channels.graph, kind: 'unit' });
  if (e.channels.fulltext !== undefined) bars.push({ name: 'full-text', value: e.channels.fulltext, kind: 'unit' });
  bars.push({ name: 'fused', value: e.fused, kind: 'unit' });
  if (e.rerank) bars.push({ name: `rerank (${e.rerank.name})`, value: e.rerank.score, kind: 'unit' });
  if (e.boost !== undefined && e.boost !== 1) bars.push({ name: 'boost', value: e.boost, kind: 'factor' });
  bars.push({ name: 'relevance', value: hit.relevance, kind: 'unit' });
  const notes = [`lexical weight ${e.lexicalWeight.toFixed(2)}`];
  if (hit.collection !== null) notes.push(`collection ${hit.collection}`);
  if (e.stage !== undefined && e.stage > 0) notes.push(`deep-search stage ${e.stage}`);
  if (hit.rewritten) notes.push(`rewritten: ${hit.rewritten}`);
  return {
    memory: hit.memory,
    score: hit.relevance,
    bars,
    paths: e.paths,
    channels: Object.entries(e.channels).map(([name, score]) => ({ name, score })),
    notes,
  };
}

function fromRecallHit(hit: RecallHit): ShownHit {
  const e = hit.explanation;
  const bars: ScoreBar[] = [
    { name: 'cosine', value: e.cosine, kind: 'unit' },
    { name: 'BM25', value: e.bm25, kind: 'unit' },
  ];
  for (const [name, value] of Object.entries(e.extra ?? {})) bars.push({ name, value, kind: 'unit' });
  bars.push({ name: 'fused', value: e.fused, kind: 'unit' });
  const notes = [
    `fused = ${e.denseWeight.toFixed(2)}·cos + ${e.lexicalWeight.toFixed(2)}·bm25`,
    `raw BM25 ${e.bm25Raw.toFixed(3)}`,
  ];
  if (e.denseRank !== undefined) notes.push(`dense rank ${e.denseRank}`);
  if (e.lexicalRank !== undefined) notes.push(`lexical rank ${e.lexicalRank}`);
  return {
    memory: hit.memory,
    score: hit.score,
    bars,
    paths: ['recall'],
    channels: e.channels.map((name) => ({ name })),
    notes,
  };
}

function list(values: Array<string | null | undefined> | undefined): string[] {
  return (values ?? []).filter((v): v is string => typeof v === 'string' && v !== '');
}

/**
 * The searcher's default threshold. The page asks `/v1/search` for everything (threshold
 * {@link NO_THRESHOLD}) and splits at the chosen threshold itself, so it can show what was cut:
 * the searcher applies its threshold before the per-type trim of the score-sorted list, so the
 * hits kept are exactly the ones a search with that threshold returns.
 */
export const SEARCH_DEFAULT_THRESHOLD = 0;
const NO_THRESHOLD = -1e9;

function searchOutcome(label: string, r: SearchResponse, threshold: number): Outcome {
  const p = r.plan;
  const plan: Array<[string, string[]]> = [
    [
      'mode',
      [
        p.info?.fallback
          ? `${p.mode ?? '?'} → planned in ${p.info.mode ?? 'fast'} mode (${p.info.fallback})`
          : (p.mode ?? '?'),
      ],
    ],
    ['goal type', list([p.goal?.goalType])],
    ['rephrased query', list([p.goal?.rephrasedQuery])],
    ['expanded queries', list(p.goal?.memories)],
    ['sub-questions', list(p.subQuestions)],
    ['graph keys', list(p.goal?.keys)],
    ['graph tags', list(p.goal?.tags)],
    ['keyword terms', list(p.keywordTerms)],
    ['texts embedded', list(p.queryTexts)],
    ['paths', list(p.paths)],
    ['reranker', list([p.reranker])],
    ['collections searched', r.collections.searched.map((c) => c ?? '(whole scope)')],
  ];
  for (const stage of p.stages ?? []) {
    plan.push([
      `deep stage ${stage.stage}`,
      [stage.canAnswer ? 'can answer' : 'looking further', ...stage.phrases, ...list([stage.error])],
    ]);
  }
  const timings: Array<[string, number]> = [];
  const detailTimings: Array<[string, number]> = [];
  for (const [name, value] of Object.entries(r.timings) as Array<[string, number | Record<string, number>]>) {
    if (typeof value === 'number') timings.push([name.replace(/Ms$/, ''), value]);
    else for (const [sub, ms] of Object.entries(value)) detailTimings.push([`${name}: ${sub}`, ms]);
  }
  return {
    label,
    query: r.query,
    threshold,
    hits: r.hits.filter((h) => h.relevance >= threshold).map(fromSearchHit),
    cut: r.hits.filter((h) => h.relevance < threshold).map(fromSearchHit),
    plan: plan.filter(([, values]) => values.length > 0),
    timings,
    detailTimings,
    degraded: Object.entries(r.degraded),
  };
}

function recallOutcome(label: string, r: RecallResponse, threshold: number): Outcome {
  const timings: Array<[string, number]> = Object.entries(r.timings).map(([name, ms]) => [name.replace(/Ms$/, ''), ms]);
  const detailTimings: Array<[string, number]> = Object.entries(r.server ?? {}).map(([name, ms]) => [
    `server: ${name.replace(/Ms$/, '')}`,
    ms,
  ]);
  return {
    label,
    query: r.query,
    threshold,
    hits: r.hits.map(fromRecallHit),
    cut: r.cut.map(fromRecallHit),
    plan: [
      ['engine', ['core recall (dense pool + BM25 fusion)']],
      ['dense candidate pool', [String(r.poolSize)]],
    ],
    timings,
    detailTimings,
    degraded: [],
  };
}

/** Runs one setting for `query` in `scope`. */
export async function runEngine(
  api: ApiClient,
  scope: RequestScope,
  query: string,
  setting: EngineSetting,
): Promise<Outcome> {
  const label = settingLabel(setting);
  const types = setting.types.length > 0 ? setting.types : undefined;
  const threshold = setting.threshold ?? undefined;
  if (setting.engine === 'search') {
    const body: SearchRequest = {
      query,
      scope,
      mode: setting.mode,
      reranker: setting.reranker,
      fastGraph: setting.fastGraph,
      types,
      topK: setting.limit,
      threshold: NO_THRESHOLD,
    };
    const result = await api.request<SearchResponse>('POST', '/search', { body });
    return searchOutcome(label, result, threshold ?? SEARCH_DEFAULT_THRESHOLD);
  }
  const result = await api.request<RecallResponse>('POST', '/recall', {
    body: { query, scope, profile: setting.profile, types, limit: setting.limit, threshold, explain: true },
  });
  return recallOutcome(label, result, setting.threshold ?? 0.1);
}
