import type { Embedder } from '../../src/embed/embedder.js';
import type { LocomoConversation } from '../../src/import/locomo.js';
import { bm25Scores } from '../../src/text/bm25.js';
import { referenceTokenize } from '../../src/text/tokenizer.js';
import { cosine } from '../../src/vector/cosine.js';

/** Ranks one conversation's turns for a query: dia_ids, best first, at most `k`. */
export interface Ranker {
  rank(query: string, k: number): Promise<string[]>;
  close?(): Promise<void>;
}

/** Builds a {@link Ranker} per conversation. */
export interface RankerFactory {
  /** Row label in the tables. */
  description: string;
  /** True when the ranking depends on k (pool sizes scale with the limit), so each k is asked separately. */
  perK: boolean;
  open(conv: LocomoConversation): Promise<Ranker>;
  close?(): Promise<void>;
}

/** Indices of `scores` sorted best first (ties: lower index first), keeping only scores > `floor`. */
function order(scores: ArrayLike<number>, floor = Number.NEGATIVE_INFINITY): number[] {
  const idx: number[] = [];
  for (let i = 0; i < scores.length; i++) if ((scores[i] as number) > floor) idx.push(i);
  return idx.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
}

interface ConvIndex {
  ids: string[];
  tokens: string[][];
  vectors: Float32Array[];
}

/**
 * Reference rankers for the baseline rows only (the seed and engram rows come from the facade):
 * BM25 over the whole conversation with the reference tokenizer (as in BASELINES.md),
 * exact cosine over every turn, and RRF(dense, BM25) with k = 60.
 */
export function baselineRankers(embedder: Embedder): Record<'bm25' | 'dense' | 'rrf', RankerFactory> {
  const index = async (conv: LocomoConversation): Promise<ConvIndex> => {
    const texts = conv.memories.map((m) => m.text);
    return {
      ids: conv.turns.map((t) => t.diaId),
      tokens: texts.map((t) => referenceTokenize(t)),
      vectors: await embedder.embed(texts),
    };
  };
  const bm25Order = (ix: ConvIndex, query: string): number[] =>
    order(bm25Scores(referenceTokenize(query), ix.tokens).raw, 0);
  const denseOrder = async (ix: ConvIndex, query: string): Promise<number[]> => {
    const [q] = await embedder.embed([query]);
    return order(ix.vectors.map((v) => cosine(q as Float32Array, v)));
  };
  return {
    bm25: {
      description: 'BM25 only, whole conversation (reference tokenizer)',
      perK: false,
      async open(conv) {
        const ix = await index(conv);
        return {
          rank: async (query, k) =>
            bm25Order(ix, query)
              .slice(0, k)
              .map((i) => ix.ids[i] as string),
        };
      },
    },
    dense: {
      description: 'dense only (exact cosine)',
      perK: false,
      async open(conv) {
        const ix = await index(conv);
        return { rank: async (query, k) => (await denseOrder(ix, query)).slice(0, k).map((i) => ix.ids[i] as string) };
      },
    },
    rrf: {
      description: 'RRF(dense, whole-conversation BM25), k = 60',
      perK: false,
      async open(conv) {
        const ix = await index(conv);
        return {
          async rank(query, k) {
            const fused = new Float64Array(ix.ids.length);
            (await denseOrder(ix, query)).forEach((i, r) => (fused[i] = (fused[i] as number) + 1 / (60 + r + 1)));
            bm25Order(ix, query).forEach((i, r) => (fused[i] = (fused[i] as number) + 1 / (60 + r + 1)));
            return order(fused)
              .slice(0, k)
              .map((i) => ix.ids[i] as string);
          },
        };
      },
    },
  };
}
