import type { Memory } from '../../src/model/memory.js';
import { compareCandidates, type RecallCandidate } from '../../src/recall/recall-candidate.js';
import { stemmedTokenize } from '../../src/text/tokenizer.js';
import type { PooledCase } from './ranking-pools.js';
import { variant, type PoolRanker } from './ranking-variants.js';

/**
 * The mechanisms measured and not kept, each on top of Engram's default ranking, over the same
 * pools. They live here, not in src/: see bench/RESULTS-ranking.md for their figures.
 */

// The NLTK English stopword list (179 words), as published; apostrophes split like the tokenizer does.
const NLTK =
  "i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom this that that'll these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don don't should should've now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn";
const QUERY_STOPWORDS = new Set(NLTK.split(' ').flatMap((w) => stemmedTokenize(w.replace(/'/g, ' '))));

const TIME_EXPRESSION =
  /\b(yesterday|today|tonight|tomorrow|ago|last (week|weekend|month|year|night|summer|winter|spring|fall)|next (week|month|year)|this (week|weekend|month|year)|january|february|march|april|june|july|august|september|october|november|december|(19|20)\d\d)\b/i;

/** Pseudo-relevance feedback: the 5 best new terms (tf·idf in the pool) of the first pass's top 3, at 1/5 weight. */
function expandQuery(tokens: string[], pc: PooledCase, top: readonly Memory[], k: number): string[] {
  const pool = pc.pools.get(k) ?? [];
  const seen = new Set(tokens);
  const df = new Map<string, number>();
  for (const m of pool) for (const t of new Set(stemmedTokenize(m.memory.text))) df.set(t, (df.get(t) ?? 0) + 1);
  const tf = new Map<string, number>();
  for (const m of top)
    for (const t of new Set(stemmedTokenize(m.text))) if (!seen.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
  const terms = [...tf]
    .map(([t, c]) => [t, c * Math.log(pool.length / (df.get(t) ?? 1))] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([t]) => t);
  // Query tokens count with multiplicity: each original token 5 times, each new term once.
  return [...tokens.flatMap((t) => [t, t, t, t, t]), ...terms];
}

/** Reciprocal-rank fusion of the pool's cosine order and its BM25 (text and context) order, k = 60. */
function rrf(ranked: RecallCandidate[]): RecallCandidate[] {
  const byCos = [...ranked].sort((a, b) => b.cosine - a.cosine);
  const byLex = [...ranked].sort((a, b) => b.bm25Raw - a.bm25Raw);
  const score = new Map<string, number>();
  byCos.forEach((c, r) => score.set(c.id, 1 / (61 + r)));
  byLex.forEach((c, r) => score.set(c.id, (score.get(c.id) ?? 0) + (c.bm25Raw > 0 ? 1 / (61 + r) : 0)));
  for (const c of ranked) c.fused = score.get(c.id) ?? 0;
  return [...ranked].sort(compareCandidates);
}

/** Re-sorts the pool after rewriting each candidate's fused score. */
function rescore(ranked: RecallCandidate[], score: (c: RecallCandidate) => number): RecallCandidate[] {
  for (const c of ranked) c.fused = score(c);
  return [...ranked].sort(compareCandidates);
}

/**
 * Each removed mechanism as a ranker, on top of the default ranking. `neighbour(m, ±1)` is the
 * turn after / before a memory in its session (LoCoMo dia_ids), when there is one.
 */
export function removedMechanisms(
  neighbour: (m: Memory, delta: number) => Memory | undefined,
): Record<string, PoolRanker> {
  const base = variant();
  return {
    '+ next turn in the background too': variant({
      background: (m) => [m.background, neighbour(m, 1)?.text].filter((t) => !!t).join('\n') || null,
    }),
    '+ cosine of the previous turn (×0.25)': variant({
      cosine: (member, pc) => {
        const prev = neighbour(member.memory, -1);
        return member.cosine + 0.25 * (prev === undefined ? 0 : (pc.cosineOf.get(prev.id) ?? 0));
      },
    }),
    '+ stopwords removed from the query (NLTK list)': variant({
      queryTokens: (tokens) => tokens.filter((t) => !QUERY_STOPWORDS.has(t)),
    }),
    '+ pseudo-relevance feedback (top 3, 5 terms, 1/5 weight)': variant({
      queryTokens: (tokens, pc, pool) => expandQuery(tokens, pc, base(pc, kOf(pc, pool)).slice(0, 3), kOf(pc, pool)),
    }),
    '+ "when…" favours memories with a time expression (+0.05)': variant({
      reorder: (ranked, _docs, pc, memories) =>
        /^\s*(when|how long)\b/i.test(pc.query)
          ? rescore(ranked, (c) => c.fused + (TIME_EXPRESSION.test(memories.get(c.id)?.text ?? '') ? 0.05 : 0))
          : ranked,
    }),
    'speaker as a hard tier (named speaker first)': variant({
      reorder: (ranked) => [...ranked].sort((a, b) => b.speaker - a.speaker || compareCandidates(a, b)),
    }),
    'RRF of the pool’s cosine and BM25 orders (k = 60)': variant({ reorder: (ranked) => rrf(ranked) }),
    'linear (0.5·cos + 0.5·BM25 + 0.2·speaker), no spread scaling': variant({
      reorder: (ranked) => rescore(ranked, (c) => 0.5 * c.cosine + 0.5 * c.bm25 + 0.2 * c.speaker),
    }),
  };
}

/** The cut-off a pool was built for (the pool is the same array object the case holds). */
function kOf(pc: PooledCase, pool: readonly unknown[]): number {
  for (const [k, members] of pc.pools) if (members === pool) return k;
  return 10;
}
