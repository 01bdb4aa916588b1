import { memoryFlag, type MemoryFlag } from '../model/memory-flag.js';
import type { Memory } from '../model/memory.js';

/** A recall or search hit: a memory and the explanation of its score. */
interface ExplainedHit {
  memory: Memory;
  explanation: { flagged?: MemoryFlag | undefined };
}

/**
 * The poisoning guard on the read path. Hits whose memory was flagged on write (text that tries
 * to instruct the model) carry the flag in `explanation.flagged`; unless `include`, they are
 * moved from `shown` to `withheld`, so injection, MCP tools and the reasoner never see them, and
 * the caller (and the inspector) can say which memory was withheld and why. Order is kept.
 */
export function withholdFlagged<T extends ExplainedHit>(
  hits: readonly T[],
  include: boolean,
): { shown: T[]; withheld: T[] } {
  const shown: T[] = [];
  const withheld: T[] = [];
  for (const hit of hits) {
    const flag = memoryFlag(hit.memory);
    if (flag === null) {
      shown.push(hit);
      continue;
    }
    const flagged = { ...hit, explanation: { ...hit.explanation, flagged: flag } };
    (include ? shown : withheld).push(flagged);
  }
  return { shown, withheld };
}

/**
 * Runs `rank(limit)` and withholds flagged hits; when some were withheld, ranks once more, deeper
 * by as many (at most `maxLimit`), so `hits` is still filled up to `limit` when the ranking has
 * enough clean memories. A ranking without flagged hits costs nothing more than before.
 */
export async function rankWithholding<R extends { hits: ExplainedHit[]; cut: ExplainedHit[] }>(
  rank: (limit: number) => Promise<R>,
  limit: number,
  maxLimit: number,
  include: boolean,
): Promise<R & { withheld: R['hits'] }> {
  let result = await rank(limit);
  let split = withholdFlagged(result.hits, include);
  if (split.withheld.length > 0 && limit < maxLimit) {
    result = await rank(Math.min(limit + split.withheld.length, maxLimit));
    split = withholdFlagged(result.hits, include);
  }
  const cut = withholdFlagged(result.cut, true).shown;
  return { ...result, hits: split.shown.slice(0, limit), cut, withheld: split.withheld };
}
