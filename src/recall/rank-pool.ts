import { topK } from '../vector/top-k.js';
import type { LexicalWeights } from './lexical-weights.js';
import { fuseLinear } from './linear-fusion.js';
import type { PoolDocument } from '../text/pool-document.js';
import type { TermDictionary } from '../text/term-dictionary.js';
import {
  decodeDocument,
  encodeTermDocument,
  isTermDocument,
  type RankDocument,
  type TermDocument,
} from '../text/term-document.js';
import { compareCandidates, type RecallCandidate } from './recall-candidate.js';
import type { RecallProfileSpec } from './recall-profile.js';
import { fuseSpread, fuseSpreadTerms } from './spread-fusion.js';

/** The weights a pool was fused with (`speakerWeight` is 0 for the reference fusion). */
export interface PoolWeights {
  denseWeight: number;
  lexicalWeight: number;
  speakerWeight: number;
}

/** A ranked pool: its best `limit` candidates, best first, and the weights they were fused with. */
export interface PoolRanking extends PoolWeights {
  ranked: RecallCandidate[];
}

/** Per-document scores of a fused pool, in input order. */
export interface PoolScores extends PoolWeights {
  bm25: Float64Array;
  bm25Raw: Float64Array;
  speaker: Uint8Array;
  fused: Float64Array;
}

type ScoreProfile = Pick<RecallProfileSpec, 'tokenize' | 'bm25' | 'fusion' | 'contextWeight'>;

/**
 * Scores a pool with the profile's fusion: the reference linear fusion of the text's BM25 and the
 * cosine, or the spread fusion of text, context and speakers. Shared by the recall and by the
 * searcher's paths, so both rank a pool the same way. `cosines[i]` is `documents[i]`'s. Documents
 * of term ids (a store's) are scored as ids, the query's tokens looked up in their dictionary; the
 * numbers are those of their strings.
 */
export function scorePool(
  queryTokens: readonly string[],
  documents: readonly RankDocument[],
  cosines: ArrayLike<number>,
  options: { weights: LexicalWeights; profile: ScoreProfile },
): PoolScores {
  const { weights, profile } = options;
  if (profile.fusion === 'spread') {
    const spread = { weights, bm25: profile.bm25, contextWeight: profile.contextWeight };
    const terms = termPool(documents);
    if (terms !== null) {
      // The documents were numbered first: a mixed pool's strings may add terms the query then finds.
      const queryIds = queryTokens.map((t) => terms.dictionary.find(t));
      return fuseSpreadTerms(queryIds, terms.documents, cosines, spread);
    }
    const strings = documents.map((d, i) => ({ ...asStrings(d), cosine: cosines[i] as number }));
    return fuseSpread(queryTokens, strings, spread);
  }
  const strings = documents.map((d, i) => ({ tokens: asStrings(d).tokens, cosine: cosines[i] as number }));
  const linear = fuseLinear(queryTokens, strings, { weights, tokenize: profile.tokenize, bm25: profile.bm25 });
  return { ...linear, speakerWeight: 0, speaker: new Uint8Array(documents.length) };
}

/**
 * The pool as term documents of one dictionary (documents of strings numbered in it), or null when
 * it holds none, or documents of two dictionaries (then it is scored as strings).
 */
function termPool(
  documents: readonly RankDocument[],
): { dictionary: TermDictionary; documents: TermDocument[] } | null {
  const first = documents.find(isTermDocument);
  if (first === undefined) return null;
  const { dictionary } = first;
  if (documents.some((d) => isTermDocument(d) && d.dictionary !== dictionary)) return null;
  return {
    dictionary,
    documents: documents.map((d) => (isTermDocument(d) ? d : encodeTermDocument(d, dictionary))),
  };
}

function asStrings(document: RankDocument): PoolDocument {
  return isTermDocument(document) ? decodeDocument(document) : document;
}

/**
 * Ranks a candidate pool the way the recall does: {@link scorePool} (written into each candidate's
 * `bm25`, `bm25Raw`, `speaker` and `fused`), then the best `limit` by {@link compareCandidates}, by
 * partial selection. `documents[i]` describes `pool[i]`. With no query tokens the ranking is dense only.
 */
export function rankPool(
  queryTokens: readonly string[],
  pool: readonly RecallCandidate[],
  documents: readonly RankDocument[],
  options: { weights: LexicalWeights; profile: ScoreProfile },
  limit: number,
): PoolRanking {
  const scores = scorePool(
    queryTokens,
    documents,
    Float64Array.from(pool, (c) => c.cosine),
    options,
  );
  pool.forEach((c, i) => {
    c.bm25 = scores.bm25[i] as number;
    c.bm25Raw = scores.bm25Raw[i] as number;
    c.speaker = scores.speaker[i] as number;
    c.fused = scores.fused[i] as number;
  });
  return {
    ranked: topK(pool, limit, compareCandidates),
    denseWeight: scores.denseWeight,
    lexicalWeight: scores.lexicalWeight,
    speakerWeight: scores.speakerWeight,
  };
}
