import { goldTurnIds, type LocomoBenchConversation, type LocomoCategory } from './locomo-questions.js';

/** A LoCoMo question that can be scored on turn retrieval. */
export interface EvalQuestion {
  sampleId: string;
  /** Position in the sample's `qa` list. */
  index: number;
  question: string;
  category: LocomoCategory;
  /** Gold dia_ids that name real turns (non-empty). */
  gold: string[];
}

/**
 * Questions of categories 1–4 whose evidence names at least one real turn; gold = those turns.
 * (760 of the 999 questions of locomo-dev.json.)
 */
export function evalQuestions(conv: LocomoBenchConversation): EvalQuestion[] {
  const ids = new Set(conv.turns.map((t) => t.diaId));
  const out: EvalQuestion[] = [];
  for (const q of conv.questions) {
    if (q.category > 4) continue;
    const gold = goldTurnIds(q, ids);
    if (gold.length === 0) continue;
    out.push({ sampleId: conv.sampleId, index: q.index, question: q.question, category: q.category, gold });
  }
  return out;
}

/** Scores of one ranked list against one question at one cut-off. */
export interface CutScores {
  /** Share of gold turns in the top k. */
  recall: number;
  /** 1 when at least one gold turn is in the top k. */
  hit: number;
  /** Share of gold sessions with at least one turn in the top k. */
  sessionRecall: number;
}

/** Session number of a dia_id `D<session>:<turn>` (NaN when it has another shape). */
export function sessionOf(diaId: string): number {
  const m = /^D(\d+):/.exec(diaId);
  return m === null ? Number.NaN : Number(m[1]);
}

/** Turn and session scores of the first `k` of `ranked` (dia_ids, best first). */
export function scoreCut(ranked: readonly string[], gold: readonly string[], k: number): CutScores {
  const top = new Set(ranked.slice(0, k));
  let found = 0;
  for (const id of gold) if (top.has(id)) found += 1;
  const goldSessions = new Set(gold.map(sessionOf));
  const topSessions = new Set([...top].map(sessionOf));
  let sessionsFound = 0;
  for (const s of goldSessions) if (topSessions.has(s)) sessionsFound += 1;
  return {
    recall: found / gold.length,
    hit: found > 0 ? 1 : 0,
    sessionRecall: sessionsFound / goldSessions.size,
  };
}

/** Running sums of {@link CutScores} by category and cut-off. */
export class ScoreBoard {
  private readonly sums = new Map<string, { n: number; recall: number; hit: number; sessionRecall: number }>();

  constructor(readonly ks: readonly number[]) {}

  add(category: LocomoCategory, k: number, scores: CutScores): void {
    for (const key of [`${category}@${k}`, `all@${k}`]) {
      const s = this.sums.get(key) ?? { n: 0, recall: 0, hit: 0, sessionRecall: 0 };
      s.n += 1;
      s.recall += scores.recall;
      s.hit += scores.hit;
      s.sessionRecall += scores.sessionRecall;
      this.sums.set(key, s);
    }
  }

  /** Means for a category (or `all`) at k; NaN when no question of that category was scored. */
  get(category: LocomoCategory | 'all', k: number): CutScores & { n: number } {
    const s = this.sums.get(`${category}@${k}`);
    if (s === undefined || s.n === 0) return { n: 0, recall: Number.NaN, hit: Number.NaN, sessionRecall: Number.NaN };
    return { n: s.n, recall: s.recall / s.n, hit: s.hit / s.n, sessionRecall: s.sessionRecall / s.n };
  }
}
