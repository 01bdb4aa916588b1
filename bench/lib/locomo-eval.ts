import type { EvalCase } from '../../src/eval/eval-case.js';
import type { ExtraMetric } from '../../src/eval/eval-metrics.js';
import { goldTurnIds, LOCOMO_CATEGORY_NAMES, type LocomoBenchConversation } from './locomo-questions.js';

/** The tenant every LoCoMo bench loads into; each conversation is its own user (= sample_id). */
export const LOCOMO_TENANT = 'bench';

/**
 * The evaluation cases of one conversation: questions of categories 1–4 whose evidence names at
 * least one real turn; expected = those turns' dia_ids (the memories' keys), scope user = the
 * sample id, category = the LoCoMo category name, id = `{sample_id}#{question index}`.
 * (760 of the 999 questions of locomo-dev.json.)
 */
export function locomoCases(conv: LocomoBenchConversation): EvalCase[] {
  const ids = new Set(conv.turns.map((t) => t.diaId));
  const out: EvalCase[] = [];
  for (const q of conv.questions) {
    if (q.category > 4) continue;
    const expected = goldTurnIds(q, ids);
    if (expected.length === 0) continue;
    out.push({
      id: `${conv.sampleId}#${q.index}`,
      query: q.question,
      expected,
      scope: { user: conv.sampleId },
      category: LOCOMO_CATEGORY_NAMES[q.category],
    });
  }
  return out;
}

/** The sample id of a case made by {@link locomoCases}. */
export function sampleOf(caseId: string): string {
  return caseId.slice(0, caseId.lastIndexOf('#'));
}

/** Session number of a dia_id `D<session>:<turn>` (NaN when it has another shape). */
export function sessionOf(diaId: string): number {
  const m = /^D(\d+):/.exec(diaId);
  return m === null ? Number.NaN : Number(m[1]);
}

/** Share of the gold turns' sessions with at least one turn in the top k (the memories' keys are dia_ids). */
export const sessionRecall: ExtraMetric = (expected, top) => {
  const goldSessions = new Set(expected.map(sessionOf));
  const topSessions = new Set(top.map((m) => sessionOf(m.key ?? '')));
  let found = 0;
  for (const s of goldSessions) if (topSessions.has(s)) found += 1;
  return found / goldSessions.size;
};
