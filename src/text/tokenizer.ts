import { stemmer } from 'stemmer';
import { REFERENCE_STOPWORDS } from './stopwords.js';

/** Splits text into lexical tokens. */
export type Tokenizer = (text: string) => string[];

// Every code unit below 0x80 (control characters included).
const ASCII_ONLY = /^[^\u0080-\uffff]*$/;
// Letters and digits of any script; marks stay attached to their base letter.
const UNICODE_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
// Accents on Latin, Greek and Cyrillic letters are folded (café = cafe); marks of other scripts carry meaning.
const FOLDABLE_MARKS = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{M}+/gu;
// Scripts written without spaces between words: indexed as overlapping character bigrams.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * The reference tokenizer, reproduced exactly: lowercase, ASCII `[a-z0-9]+` runs, the 41 stopwords
 * removed. Accented, Cyrillic and CJK text yields no tokens — that is the reference's behaviour.
 */
export const referenceTokenize: Tokenizer = (text) => asciiWords(text, referenceToken);

/** A reference token: the word, or '' for a stopword. */
const referenceToken = (word: string): string => (REFERENCE_STOPWORDS.has(word) ? '' : word);

/**
 * The `[a-z0-9]+` runs of the lowercased text, each as `tokenOf` makes it ('' drops the word) —
 * one scan of character codes (the same runs as the regular expression, without its match
 * arrays: this runs for every candidate of every recall).
 */
function asciiWords(text: string, tokenOf: (word: string) => string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    const token = tokenOf(lower.slice(start, i));
    start = -1;
    if (token !== '') out.push(token);
  }
  return out;
}

/** Lowercases, applies NFKC and folds Latin/Greek/Cyrillic diacritics. */
export function normalizeForMatching(text: string): string {
  return text.normalize('NFKC').toLowerCase().normalize('NFD').replace(FOLDABLE_MARKS, '$1').normalize('NFC');
}

function pushCjkBigrams(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) {
    out.push(chars[0] as string);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push((chars[i] as string) + (chars[i + 1] as string));
}

/**
 * Engram's Unicode-aware tokenizer: NFKC, lowercase, diacritics folded for Latin/Greek/Cyrillic,
 * words of any script, CJK runs as overlapping bigrams (a single CJK character stays a unigram),
 * the reference stopwords removed. Same contract as {@link referenceTokenize}.
 */
export const unicodeTokenize: Tokenizer = (text) => {
  // Plain ASCII is unchanged by normalisation and has no CJK: the reference split is the same.
  if (ASCII_ONLY.test(text)) return referenceTokenize(text);
  const out: string[] = [];
  for (const match of normalizeForMatching(text).matchAll(UNICODE_WORD)) {
    const word = match[0];
    if (!CJK.test(word)) {
      if (!REFERENCE_STOPWORDS.has(word)) out.push(word);
      continue;
    }
    // A word mixing CJK and other letters: CJK runs become bigrams, the rest stays whole.
    let last = 0;
    for (const run of word.matchAll(CJK_RUN)) {
      const index = run.index ?? 0;
      if (index > last) out.push(word.slice(last, index));
      pushCjkBigrams(run[0], out);
      last = index + run[0].length;
    }
    if (last < word.length) out.push(word.slice(last));
  }
  return out;
};

const ENGLISH_WORD = /^[a-z]+$/;

/**
 * {@link unicodeTokenize} with English words (plain a–z tokens) reduced to their Porter stem, so
 * "paintings" and "painted" both score as "paint". Other tokens are unchanged. Used for scoring
 * candidates; retrieval from a full-text index keeps the unstemmed words.
 */
export const stemmedTokenize: Tokenizer = (text) =>
  ASCII_ONLY.test(text) ? asciiWords(text, stemmedAsciiToken) : unicodeTokenize(text).map(stem);

/** Each ASCII word's stemmed token ('' for a stopword): one lookup per word instead of two. */
const ASCII_TOKENS = new Map<string, string>();

function stemmedAsciiToken(word: string): string {
  let token = ASCII_TOKENS.get(word);
  if (token === undefined) {
    token = referenceToken(word) === '' ? '' : stem(word);
    if (ASCII_TOKENS.size >= 100_000) ASCII_TOKENS.clear();
    ASCII_TOKENS.set(word, token);
  }
  return token;
}

/** Stems already computed: a vocabulary is small next to the number of tokens stemmed. */
const STEMS = new Map<string, string>();

function stem(token: string): string {
  let stemmed = STEMS.get(token);
  if (stemmed === undefined) {
    stemmed = ENGLISH_WORD.test(token) ? stemmer(token) : token;
    if (STEMS.size >= 100_000) STEMS.clear();
    STEMS.set(token, stemmed);
  }
  return stemmed;
}
