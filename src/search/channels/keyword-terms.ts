import { REFERENCE_STOPWORDS } from '../../text/stopwords.js';
import { normalizeForMatching } from '../../text/tokenizer.js';
import { jiebaSegmenter, type CjkSegmenter } from './cjk-segmenter.js';

const HAN = /\p{Script=Han}/u;
const HAN_ALL = /\p{Script=Han}/gu;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}_'-]*/gu;

/** English words too common to be keywords, on top of the 41 reference stopwords. */
const EXTRA_STOPWORDS = new Set([
  'about', 'after', 'all', 'also', 'am', 'any', 'been', 'before', 'but', 'can', 'could', 'did', 'each', 'get', 'got',
  'he', 'her', 'him', 'his', 'if', 'into', 'its', 'just', 'like', 'me', 'more', 'most', 'my', 'no', 'not', 'now',
  'our', 'out', 'over', 'she', 'should', 'so', 'some', 'such', 'than', 'them', 'these', 'they', 'this', 'those',
  'up', 'us', 'very', 'we', 'will', 'would', 'yes', 'yet', 'whom', 'whose', 'ever', 'kind', 'tell', 'know',
]);

/** True when Han characters make up at least 30% of the letters. */
export function isMostlyCjk(text: string): boolean {
  const han = text.match(HAN_ALL)?.length ?? 0;
  if (han === 0) return false;
  const letters = text.match(/\p{L}/gu)?.length ?? 1;
  return han / letters >= 0.3;
}

/**
 * How many keyword terms to extract: ≤ 12 characters → 1; CJK ≤ 120 characters → 2, else 3;
 * other text ≤ 8 tokens → 2, else 3 (the multi-path searcher's `_keyword_extract_top_k`).
 */
export function keywordTermCount(query: string): number {
  const text = query.trim();
  if (Array.from(text).length <= 12) return 1;
  if (isMostlyCjk(text)) return Array.from(text).length <= 120 ? 2 : 3;
  const tokens = text.split(/\s+/u).filter(Boolean).length;
  return tokens <= 8 ? 2 : 3;
}

/** A scored English keyword. */
export interface ScoredTerm {
  term: string;
  score: number;
}

/**
 * Scores English candidate terms: `count·3 + min(len,16)·0.1 + (1 if it has a digit) − (0.5 if
 * len ≤ 2)`, stopwords dropped; best first, ties by first occurrence.
 */
export function rankEnglishTerms(query: string): ScoredTerm[] {
  const counts = new Map<string, { count: number; first: number }>();
  let position = 0;
  for (const match of normalizeForMatching(query).matchAll(WORD)) {
    const term = match[0].replace(/^[-']+|[-']+$/gu, '');
    position++;
    if (!term || REFERENCE_STOPWORDS.has(term) || EXTRA_STOPWORDS.has(term)) continue;
    const seen = counts.get(term);
    if (seen) seen.count++;
    else counts.set(term, { count: 1, first: position });
  }
  return [...counts.entries()]
    .map(([term, { count, first }]) => {
      const len = Array.from(term).length;
      const score = count * 3 + Math.min(len, 16) * 0.1 + (/\p{N}/u.test(term) ? 1 : 0) - (len <= 2 ? 0.5 : 0);
      return { term, score, first };
    })
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .map(({ term, score }) => ({ term, score }));
}

/**
 * The weighted keyword terms of a query for the full-text channel (the multi-path
 * searcher's `_extract_weighted_keyword_terms`): Chinese through jieba TF-IDF keywords (content parts of
 * speech), other text by {@link rankEnglishTerms}; deduplicated, at most
 * {@link keywordTermCount} terms. Terms are plain words: the store escapes them for its syntax.
 */
export function extractKeywordTerms(query: string, options: { segmenter?: CjkSegmenter; count?: number } = {}): string[] {
  const count = options.count ?? keywordTermCount(query);
  if (HAN.test(query) && isMostlyCjk(query)) {
    const segmenter = options.segmenter ?? jiebaSegmenter();
    const terms = segmenter
      .keywords(query, count * 2)
      .map((t) => normalizeForMatching(t))
      .filter((t) => t.trim() && !REFERENCE_STOPWORDS.has(t));
    const unique = [...new Set(terms)];
    if (unique.length > 0) return unique.slice(0, count);
  }
  return rankEnglishTerms(query)
    .slice(0, count)
    .map((t) => t.term);
}

/**
 * Words of a mixed Chinese / other-script text: Han runs segmented by jieba, other runs split
 * as words; stopwords and punctuation dropped. Used by the fast-graph planner for keys and tags.
 */
export function tokenizeMixed(text: string, segmenter?: CjkSegmenter): string[] {
  const out: string[] = [];
  const normalized = normalizeForMatching(text);
  for (const match of normalized.matchAll(WORD)) {
    const word = match[0];
    if (HAN.test(word)) {
      const seg = segmenter ?? jiebaSegmenter();
      for (const piece of seg.cut(word)) if (/[\p{L}\p{N}]/u.test(piece) && !REFERENCE_STOPWORDS.has(piece)) out.push(piece);
    } else if (!REFERENCE_STOPWORDS.has(word) && !EXTRA_STOPWORDS.has(word)) out.push(word);
  }
  return [...new Set(out)];
}
