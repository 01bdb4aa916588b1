import type { Embedder } from '../../src/embed/embedder.js';
import type { EvalRanker, RankedMemory } from '../../src/eval/eval-ranker.js';
import type { LocomoConversation } from '../../src/import/locomo.js';
import { bm25Scores } from '../../src/text/bm25.js';
import { referenceTokenize, stemmedTokenize } from '../../src/text/tokenizer.js';
import { cosine } from '../../src/vector/cosine.js';

/** Indices of `scores` sorted best first (ties: lower index first), keeping only scores > `floor`. */
function order(scores: ArrayLike<number>, floor = Number.NEGATIVE_INFINITY): number[] {
  const idx: number[] = [];
  for (let i = 0; i < scores.length; i++) if ((scores[i] as number) > floor) idx.push(i);
  return idx.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
}

interface ConvIndex {
  ids: string[];
  texts: string[];
  tokens: string[][];
  stemmed: string[][];
  vectors: Float32Array[];
}

/**
 * Reference rankers for the baseline rows only (the "seed" and "engram" profile rows come from the facade):
 * BM25 over the whole conversation with the reference tokenizer (as in BASELINES.md), the same
 * with Porter stemming (Engram's scoring tokenizer, no vectors),
 * exact cosine over every turn, and RRF(dense, BM25) with k = 60. A case's scope user names its
 * conversation; the memories' keys are the turns' dia_ids.
 */
export function baselineRankers(
  embedder: Embedder,
  conversations: readonly LocomoConversation[],
): Record<'bm25' | 'bm25-stemmed' | 'dense' | 'rrf', EvalRanker> {
  const indexes = new Map<string, Promise<ConvIndex>>();
  const index = (user: string | undefined): Promise<ConvIndex> => {
    const conv = conversations.find((c) => c.sampleId === user);
    if (conv === undefined) throw new Error(`no conversation ${String(user)}`);
    let ix = indexes.get(conv.sampleId);
    if (ix === undefined) {
      const texts = conv.memories.map((m) => m.text);
      ix = embedder.embed(texts).then((vectors) => ({
        ids: conv.turns.map((t) => t.diaId),
        texts,
        tokens: texts.map((t) => referenceTokenize(t)),
        stemmed: texts.map((t) => stemmedTokenize(t)),
        vectors,
      }));
      indexes.set(conv.sampleId, ix);
    }
    return ix;
  };
  const bm25Scored = (ix: ConvIndex, query: string): Float64Array =>
    bm25Scores(referenceTokenize(query), ix.tokens).raw;
  const cosines = async (ix: ConvIndex, query: string): Promise<number[]> => {
    const [q] = await embedder.embed([query]);
    return ix.vectors.map((v) => cosine(q as Float32Array, v));
  };
  const ranked = (ix: ConvIndex, scores: ArrayLike<number>, k: number, floor?: number): RankedMemory[] =>
    order(scores, floor)
      .slice(0, k)
      .map((i) => ({
        id: ix.ids[i] as string,
        key: ix.ids[i] as string,
        text: ix.texts[i] as string,
        score: scores[i] as number,
      }));
  return {
    bm25: {
      name: 'BM25 only, whole conversation (reference tokenizer)',
      async rank(query, scope, k) {
        const ix = await index(scope.user);
        return ranked(ix, bm25Scored(ix, query), k, 0);
      },
    },
    'bm25-stemmed': {
      name: 'BM25 only, whole conversation, Porter-stemmed (no vectors)',
      async rank(query, scope, k) {
        const ix = await index(scope.user);
        return ranked(ix, bm25Scores(stemmedTokenize(query), ix.stemmed).raw, k, 0);
      },
    },
    dense: {
      name: 'dense only (exact cosine)',
      async rank(query, scope, k) {
        const ix = await index(scope.user);
        return ranked(ix, await cosines(ix, query), k);
      },
    },
    rrf: {
      name: 'RRF(dense, whole-conversation BM25), k = 60',
      async rank(query, scope, k) {
        const ix = await index(scope.user);
        const fused = new Float64Array(ix.ids.length);
        order(await cosines(ix, query)).forEach((i, r) => (fused[i] = (fused[i] as number) + 1 / (60 + r + 1)));
        order(bm25Scored(ix, query), 0).forEach((i, r) => (fused[i] = (fused[i] as number) + 1 / (60 + r + 1)));
        return ranked(ix, fused, k);
      },
    },
  };
}
