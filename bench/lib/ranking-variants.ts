import type { Memory } from '../../src/model/memory.js';
import type { LexicalWeights } from '../../src/recall/lexical-weights.js';
import { memoryDocument, textDocument, type PoolDocument } from '../../src/text/pool-document.js';
import { rankPool } from '../../src/recall/rank-pool.js';
import { newCandidate, type RecallCandidate } from '../../src/recall/recall-candidate.js';
import { ENGRAM_PROFILE, ENGRAM_LEXICAL_WEIGHTS, type RecallProfileSpec } from '../../src/recall/recall-profile.js';
import { DEFAULT_LEXICAL_WEIGHTS } from '../../src/recall/lexical-weights.js';
import { bm25Scores } from '../../src/text/bm25.js';
import { stemmedTokenize } from '../../src/text/tokenizer.js';
import type { PooledCase, PoolMember } from './ranking-pools.js';

/** Ranks one pooled case at cut-off k: memories, best first. */
export type PoolRanker = (pc: PooledCase, k: number) => Memory[];

/** Which write-side fields a variant lets the ranking see. */
export interface Fields {
  background: boolean;
  statedAt: boolean;
  speaker: boolean;
}
export const ALL_FIELDS: Fields = { background: true, statedAt: true, speaker: true };
export const NO_FIELDS: Fields = { background: false, statedAt: false, speaker: false };

/** The memory as the ranking may see it under `fields` (the others removed, as if never stored). */
export function withFields(memory: Memory, fields: Fields, background = memory.background): Memory {
  return {
    ...memory,
    background: fields.background ? background : null,
    statedAt: fields.statedAt ? memory.statedAt : null,
    sources: fields.speaker ? memory.sources : [],
    metadata: fields.speaker ? memory.metadata : {},
  };
}

export interface VariantOptions {
  profile?: Partial<RecallProfileSpec>;
  weights?: LexicalWeights;
  fields?: Fields;
  /** The background a memory is ranked with (e.g. previous and next turn). @default its own */
  background?: (m: Memory) => string | null;
  /** Rewrites the query tokens (stopwords, expansion). */
  queryTokens?: (tokens: string[], pc: PooledCase, pool: PoolMember[]) => string[];
  /** Adjusts each candidate after the fusion (boosts, tiers); return the new order. */
  reorder?: (
    ranked: RecallCandidate[],
    docs: Map<string, PoolDocument>,
    pc: PooledCase,
    memories: Map<string, Memory>,
  ) => RecallCandidate[];
  /** Rewrites each member's cosine (dense context). */
  cosine?: (member: PoolMember, pc: PooledCase) => number;
}

/** A ranking through the recall's own `rankPool`, with a profile, weights and fields of choice. */
export function variant(options: VariantOptions = {}): PoolRanker {
  const profile: RecallProfileSpec = { ...ENGRAM_PROFILE, ...options.profile };
  const weights = options.weights ?? ENGRAM_LEXICAL_WEIGHTS;
  const fields = options.fields ?? ALL_FIELDS;
  // Documents depend on the memory only: built once per variant (pools share most members).
  const cache = new Map<string, PoolDocument>();
  const documentOf = (m: Memory): PoolDocument => {
    let doc = cache.get(m.id);
    if (doc === undefined) {
      const visible = withFields(m, fields, options.background ? options.background(m) : m.background);
      doc =
        profile.fusion === 'spread'
          ? memoryDocument(visible, profile.tokenize)
          : textDocument(profile.tokenize(visible.text));
      cache.set(m.id, doc);
    }
    return doc;
  };
  return (pc, k) => {
    const pool = pc.pools.get(k) ?? [];
    const byId = new Map(pool.map((m) => [m.memory.id, m.memory]));
    const candidates = pool.map((m) =>
      newCandidate(m.memory.id, options.cosine ? options.cosine(m, pc) : m.cosine, undefined, undefined, undefined),
    );
    const documents = pool.map((m) => documentOf(m.memory));
    let tokens = profile.tokenize(pc.query);
    if (options.queryTokens) tokens = options.queryTokens(tokens, pc, pool);
    const limit = options.reorder ? pool.length : k;
    let ranked = rankPool(tokens, candidates, documents, { weights, profile }, limit).ranked;
    if (options.reorder) {
      const docs = new Map(pool.map((m, i) => [m.memory.id, documents[i] as PoolDocument]));
      ranked = options.reorder(ranked, docs, pc, byId).slice(0, k);
    }
    return ranked.map((c) => byId.get(c.id) as Memory);
  };
}

/** The previous default: stemmed pool BM25 of the text fused linearly with the cosine, 0.15 / 0.30. */
export const previousDefault = variant({
  profile: { fusion: 'linear', contextWeight: 0 },
  weights: DEFAULT_LEXICAL_WEIGHTS,
  fields: NO_FIELDS,
});

/** Plain BM25 with Porter stemming over every memory of the scope (no vectors, no pool). */
export function stemmedBm25(memories: (pc: PooledCase) => readonly Memory[]): PoolRanker {
  const tokensOf = new Map<string, string[]>();
  return (pc, k) => {
    const all = memories(pc);
    const docs = all.map(
      (m) => tokensOf.get(m.id) ?? (tokensOf.set(m.id, stemmedTokenize(m.text)), tokensOf.get(m.id) as string[]),
    );
    const raw = bm25Scores(stemmedTokenize(pc.query), docs).raw;
    return (
      all
        .map((m, i) => ({ m, s: raw[i] as number }))
        .filter((x) => x.s > 0)
        // Ties by key (the dia_id), so runs over stores with fresh ids agree.
        .sort((a, b) => b.s - a.s || ((a.m.key ?? a.m.id) < (b.m.key ?? b.m.id) ? -1 : 1))
        .slice(0, k)
        .map((x) => x.m)
    );
  };
}
