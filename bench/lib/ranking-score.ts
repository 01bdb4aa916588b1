import { readFileSync } from 'node:fs';

import type { Engram } from '../../src/engram.js';
import { parseEvalCases, type EvalCase } from '../../src/eval/eval-case.js';
import {
  cutScores,
  reciprocalRank,
  summarize,
  type CaseFigures,
  type EvalSummary,
} from '../../src/eval/eval-metrics.js';
import type { MemoryInput } from '../../src/model/memory.js';
import type { PooledCase } from './ranking-pools.js';
import type { PoolRanker } from './ranking-variants.js';

const CASES_DIR = new URL('../cases/', import.meta.url);

/** Figures of one ranker over pooled cases (optionally only some groups): R@k, H@k, MRR at the largest k. */
export function scoreRanker(
  ranker: PoolRanker,
  cases: readonly PooledCase[],
  ks: readonly number[],
  groups?: ReadonlySet<string>,
): EvalSummary {
  const figures: CaseFigures[] = [];
  for (const pc of cases) {
    if (groups !== undefined && !groups.has(pc.group)) continue;
    const f: CaseFigures = { recall: {}, hit: {}, reciprocalRank: 0, extra: {} };
    for (const k of ks) {
      const top = ranker(pc, k).map((m) => ({ id: m.id, key: m.key, text: m.text, score: 0 }));
      const cut = cutScores(pc.case.expected, top, k);
      f.recall[k] = cut.recall;
      f.hit[k] = cut.hit;
      if (k === ks[ks.length - 1]) f.reciprocalRank = reciprocalRank(pc.case.expected, top);
    }
    figures.push(f);
  }
  return summarize(figures, ks, []);
}

/** Loads the hand-written indirect memories into `tenant`/user `indirect` and returns their cases in that scope. */
export async function loadIndirectCases(engram: Engram, tenant: string): Promise<EvalCase[]> {
  const lines = readFileSync(new URL('indirect-memories.jsonl', CASES_DIR), 'utf8').trim().split('\n');
  await engram.addMany(
    lines.map((l) => JSON.parse(l) as MemoryInput),
    { scope: { tenant, user: 'indirect' } },
  );
  const cases = parseEvalCases(
    readFileSync(new URL('indirect-cases.jsonl', CASES_DIR), 'utf8'),
    'indirect-cases.jsonl',
  );
  return cases.map((c) => ({ ...c, scope: { user: 'indirect' } }));
}
