/** Limits of {@link planLexicalTerms}. */
export interface LexicalPlanOptions {
  /** Total matches up to which every match is ranked. */
  rankAllBelow: number;
  /** Share of the rows above which a term counts as common. */
  commonShare: number;
}

/**
 * Which terms a lexical query ranks, and whether it can rank all their matches. When the terms
 * match more than `rankAllBelow` rows in total, terms found in more than `commonShare` of the
 * rows are dropped (if rarer ones remain); if the rest still match too many rows, the query must
 * take a bounded path (`rankAll` false), so common words never make it score most of the corpus.
 */
export function planLexicalTerms<T extends { df: number }>(
  terms: readonly T[],
  total: number,
  options: LexicalPlanOptions,
): { kept: T[]; rankAll: boolean } {
  const sum = (list: readonly T[]): number => list.reduce((s, t) => s + t.df, 0);
  let kept = [...terms];
  if (sum(kept) > options.rankAllBelow) {
    const rare = kept.filter((t) => t.df <= options.commonShare * total);
    if (rare.length > 0) kept = rare;
  }
  return { kept, rankAll: sum(kept) <= options.rankAllBelow };
}
