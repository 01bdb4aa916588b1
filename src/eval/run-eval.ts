import type { Scope } from '../model/scope.js';
import type { EvalCase } from './eval-case.js';
import {
  cutScores,
  rankOf,
  reciprocalRank,
  summarize,
  type CaseFigures,
  type EvalSummary,
  type ExtraMetric,
} from './eval-metrics.js';
import type { EvalRanker, RankedMemory } from './eval-ranker.js';

/** An expected entry that is not in the top max(k), with where it did rank and what ranked above it. */
export interface EvalMiss {
  expected: string;
  /** 1-based rank within the top `depth`, or null when it is not there either. */
  rank: number | null;
  /** Its text, when it was found within `depth`. */
  text: string | null;
  /** The memories ranked above it (at most `above`), best first. */
  above: RankedMemory[];
}

/** The outcome of one case. */
export interface CaseResult extends CaseFigures {
  id: string;
  query: string;
  category: string | null;
  expected: string[];
  /** The ranking at the largest k. */
  ranked: RankedMemory[];
  misses: EvalMiss[];
}

/** The outcome of a run of one ranker over all cases. */
export interface EvalReport {
  ranker: string;
  ks: number[];
  overall: EvalSummary;
  /** By case category (cases without one are only in `overall`). */
  byCategory: Record<string, EvalSummary>;
  cases: CaseResult[];
  /** Mean milliseconds per ranking call. */
  msPerQuery: number;
}

/** Options of {@link evaluate}. */
export interface EvalOptions {
  /** Cut-offs. @default [1, 3, 5, 10] */
  ks?: readonly number[] | undefined;
  /** Scope every case runs in; a case's own `scope` fields override it. */
  scope: Scope;
  /** How deep a miss is looked for (one more ranking call per case with a miss). @default 50 */
  depth?: number | undefined;
  /** Memories listed above a miss. @default 3 */
  above?: number | undefined;
  /** Extra per-cut metrics, by name. @default none */
  extra?: Record<string, ExtraMetric> | undefined;
  /** Called after each case. */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

export const DEFAULT_EVAL_KS: readonly number[] = [1, 3, 5, 10];

async function rankings(
  ranker: EvalRanker,
  c: EvalCase,
  scope: Scope,
  ks: readonly number[],
  clock: { ms: number; calls: number },
): Promise<Map<number, RankedMemory[]>> {
  const timed = async (limit: number): Promise<RankedMemory[]> => {
    const start = performance.now();
    const ranked = await ranker.rank(c.query, scope, limit);
    clock.ms += performance.now() - start;
    clock.calls += 1;
    return ranked;
  };
  const byK = new Map<number, RankedMemory[]>();
  const maxK = ks[ks.length - 1] as number;
  if (ranker.perK) for (const k of ks) byK.set(k, await timed(k));
  else {
    const ranked = await timed(maxK);
    for (const k of ks) byK.set(k, ranked.slice(0, k));
  }
  return byK;
}

async function findMisses(
  ranker: EvalRanker,
  c: EvalCase,
  scope: Scope,
  top: readonly RankedMemory[],
  options: { depth: number; above: number },
): Promise<EvalMiss[]> {
  const missing = c.expected.filter((e) => rankOf(e, top) === null);
  if (missing.length === 0) return [];
  const deep = options.depth > top.length ? await ranker.rank(c.query, scope, options.depth) : [...top];
  return missing.map((entry) => {
    const rank = rankOf(entry, deep);
    return {
      expected: entry,
      rank,
      text: rank === null ? null : (deep[rank - 1]?.text ?? null),
      above: deep.slice(0, Math.min(options.above, rank === null ? deep.length : rank - 1)),
    };
  });
}

/**
 * Runs every case through `ranker` and scores it: recall@k and hit@k for each k, MRR within the
 * top max(k), and for each expected entry missing from the top max(k) its rank within `depth`
 * and the memories ranked above it. Cases run one after another (timings are per call).
 */
export async function evaluate(
  ranker: EvalRanker,
  cases: readonly EvalCase[],
  options: EvalOptions,
): Promise<EvalReport> {
  const ks = [...new Set(options.ks ?? DEFAULT_EVAL_KS)].sort((a, b) => a - b);
  const maxK = ks[ks.length - 1] as number;
  const extra = options.extra ?? {};
  const clock = { ms: 0, calls: 0 };
  const results: CaseResult[] = [];
  for (const [i, c] of cases.entries()) {
    const scope: Scope = { ...options.scope, ...c.scope } as Scope;
    const byK = await rankings(ranker, c, scope, ks, clock);
    const top = byK.get(maxK) ?? [];
    const figures: CaseFigures = { recall: {}, hit: {}, reciprocalRank: reciprocalRank(c.expected, top), extra: {} };
    for (const k of ks) {
      const list = byK.get(k) ?? [];
      const cut = cutScores(c.expected, list, k);
      figures.recall[k] = cut.recall;
      figures.hit[k] = cut.hit;
      for (const [name, metric] of Object.entries(extra))
        (figures.extra[name] ??= {})[k] = metric(c.expected, list.slice(0, k));
    }
    const misses = await findMisses(ranker, c, scope, top, { depth: options.depth ?? 50, above: options.above ?? 3 });
    results.push({
      ...figures,
      id: c.id ?? `case ${i + 1}`,
      query: c.query,
      category: c.category ?? null,
      expected: c.expected,
      ranked: top,
      misses,
    });
    options.onProgress?.(i + 1, cases.length);
  }
  const names = Object.keys(extra);
  const categories = [...new Set(results.flatMap((r) => (r.category === null ? [] : [r.category])))];
  return {
    ranker: ranker.name,
    ks,
    overall: summarize(results, ks, names),
    byCategory: Object.fromEntries(
      categories.map((cat) => [
        cat,
        summarize(
          results.filter((r) => r.category === cat),
          ks,
          names,
        ),
      ]),
    ),
    cases: results,
    msPerQuery: clock.calls === 0 ? 0 : clock.ms / clock.calls,
  };
}
