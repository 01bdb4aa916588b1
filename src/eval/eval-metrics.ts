import type { RankedMemory } from './eval-ranker.js';

/** Extra per-cut metrics a caller adds (e.g. session recall on LoCoMo), each in [0, 1], averaged like the rest. */
export type ExtraMetric = (expected: readonly string[], top: readonly RankedMemory[]) => number;

/** Mean figures over a set of cases. */
export interface EvalSummary {
  /** Cases summarised. */
  n: number;
  /** Mean share of expected entries in the top k, by k. */
  recall: Record<number, number>;
  /** Share of cases with at least one expected entry in the top k, by k. */
  hit: Record<number, number>;
  /** Mean reciprocal rank of the first expected entry within the top max(k) (0 when absent). */
  mrr: number;
  /** Caller-supplied metrics, by name then k. */
  extra: Record<string, Record<number, number>>;
}

/** 1-based rank of the first memory matching `entry` by id or key, or null. */
export function rankOf(entry: string, ranked: readonly RankedMemory[]): number | null {
  const i = ranked.findIndex((m) => m.id === entry || m.key === entry);
  return i < 0 ? null : i + 1;
}

/** Share of `expected` entries matched in the first `k` of `ranked`, and whether any is. */
export function cutScores(
  expected: readonly string[],
  ranked: readonly RankedMemory[],
  k: number,
): {
  recall: number;
  hit: number;
} {
  const top = ranked.slice(0, k);
  let found = 0;
  for (const entry of expected) if (rankOf(entry, top) !== null) found += 1;
  return { recall: found / expected.length, hit: found > 0 ? 1 : 0 };
}

/** Reciprocal rank of the first expected entry in `ranked` (0 when none is there). */
export function reciprocalRank(expected: readonly string[], ranked: readonly RankedMemory[]): number {
  let best: number | null = null;
  for (const entry of expected) {
    const r = rankOf(entry, ranked);
    if (r !== null && (best === null || r < best)) best = r;
  }
  return best === null ? 0 : 1 / best;
}

/** What one case contributes to a summary. */
export interface CaseFigures {
  recall: Record<number, number>;
  hit: Record<number, number>;
  reciprocalRank: number;
  extra: Record<string, Record<number, number>>;
}

/** Means of `figures` (NaN everywhere for no cases). */
export function summarize(
  figures: readonly CaseFigures[],
  ks: readonly number[],
  extraNames: readonly string[],
): EvalSummary {
  const n = figures.length;
  const mean = (pick: (f: CaseFigures) => number): number =>
    n === 0 ? Number.NaN : figures.reduce((s, f) => s + pick(f), 0) / n;
  const byK = (pick: (f: CaseFigures, k: number) => number): Record<number, number> =>
    Object.fromEntries(ks.map((k) => [k, mean((f) => pick(f, k))]));
  return {
    n,
    recall: byK((f, k) => f.recall[k] as number),
    hit: byK((f, k) => f.hit[k] as number),
    mrr: mean((f) => f.reciprocalRank),
    extra: Object.fromEntries(extraNames.map((name) => [name, byK((f, k) => f.extra[name]?.[k] as number)])),
  };
}
