import { EngramError } from '../model/errors.js';
import type { EvalReport } from './run-eval.js';

/** Two runs over the same cases, side by side. */
export interface EvalComparison {
  a: EvalReport;
  b: EvalReport;
  /** b − a, by k. */
  recallDelta: Record<number, number>;
  hitDelta: Record<number, number>;
  mrrDelta: number;
  /** Cases (by id) with a hit in the top max(k) under a but not b, and the other way round. */
  onlyA: string[];
  onlyB: string[];
}

/** Compares two reports of the same cases at the same cut-offs. */
export function compareEvals(a: EvalReport, b: EvalReport): EvalComparison {
  if (a.cases.length !== b.cases.length || a.ks.join() !== b.ks.join()) {
    throw new EngramError('INVALID_INPUT', 'compareEvals needs two runs over the same cases and cut-offs');
  }
  const maxK = a.ks[a.ks.length - 1] as number;
  const delta = (pick: (r: EvalReport) => Record<number, number>): Record<number, number> =>
    Object.fromEntries(a.ks.map((k) => [k, (pick(b)[k] as number) - (pick(a)[k] as number)]));
  const onlyA: string[] = [];
  const onlyB: string[] = [];
  a.cases.forEach((ca, i) => {
    const cb = b.cases[i];
    if (cb === undefined) return;
    const hitA = ca.hit[maxK] === 1;
    const hitB = cb.hit[maxK] === 1;
    if (hitA && !hitB) onlyA.push(ca.id);
    if (hitB && !hitA) onlyB.push(ca.id);
  });
  return {
    a,
    b,
    recallDelta: delta((r) => r.overall.recall),
    hitDelta: delta((r) => r.overall.hit),
    mrrDelta: b.overall.mrr - a.overall.mrr,
    onlyA,
    onlyB,
  };
}
