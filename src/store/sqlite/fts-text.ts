/**
 * How text is indexed for FTS5, and how plain terms become a safe FTS5 query.
 *
 * The index uses `unicode61 remove_diacritics 2`, which handles accented Latin ("café" = "cafe")
 * and Cyrillic, but treats a run of Han / kana characters as ONE token ("我对花生过敏" would be a
 * single word, so "花生" could never match). The `trigram` tokenizer would find substrings, but
 * it cannot match terms shorter than 3 characters, and most Chinese words are 2 characters.
 * So CJK runs are rewritten before indexing:
 *   - column `body`: each CJK run becomes its overlapping bigrams ("花生过敏" -> "花生 生过 过敏");
 *     a 1-character run stays as is. A CJK term of n >= 2 characters is queried as the phrase of
 *     its bigrams, which matches exactly where the characters appear consecutively.
 *   - column `uni`: every CJK character on its own, for 1-character terms.
 * Hangul is written with spaces between words, so unicode61 already handles it.
 */

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]+/gu;
const WORD_CHAR = /[\p{L}\p{N}\p{Co}]/u;

function bigrams(run: string): string {
  const chars = Array.from(run);
  if (chars.length < 2) return run;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push((chars[i] as string) + (chars[i + 1] as string));
  return out.join(' ');
}

/** The two FTS column values for a memory text. */
export function ftsDocument(text: string): { body: string; uni: string } {
  const uni: string[] = [];
  const body = text.replace(CJK_RUN, (run) => {
    for (const ch of run) uni.push(ch);
    return ` ${bigrams(run)} `;
  });
  return { body, uni: uni.join(' ') };
}

/** Quotes a string as an FTS5 string literal: everything inside is literal, `"` is doubled. */
function quote(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

/** One query term made safe: the column it targets and the quoted phrase. */
export interface FtsTerm {
  /** The original term. */
  term: string;
  /** FTS5 expression for this term alone, e.g. `body : "caf\u00e9"`. */
  expression: string;
  /** The FTS5 column the expression targets. */
  column: 'body' | 'uni';
  /** The lowercased, diacritic-free tokens the term produces (for document-frequency checks). */
  tokens: string[];
}

/** Latin letters with diacritics (Latin-1 Supplement to Latin Extended-B, Latin Extended Additional). */
const LATIN_WITH_MARKS = /[\u00C0-\u024F\u1E00-\u1EFF]/g;

/**
 * Tokens as FTS5's `unicode61 remove_diacritics 2` makes them: composed, diacritics dropped from
 * Latin letters only ("café" → "cafe", "İ" → "i"; Greek tonos, Cyrillic "ё" and Hangul stay),
 * lowercased, split on everything but letters, digits and private-use characters. Compatibility
 * forms stay as written ("ﬁ", "½"), as in unicode61.
 */
export function unicode61Tokens(text: string): string[] {
  return text
    .normalize('NFC')
    .replace(LATIN_WITH_MARKS, (c) => c.normalize('NFD').replace(/\p{M}/gu, ''))
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{Co}]+/u)
    .filter((t) => t.length > 0);
}

/**
 * Turns plain terms into safe FTS5 expressions. Terms are always quoted, so FTS5 syntax inside
 * them (`"`, `*`, `-`, `:`, `^`, `(`, NEAR, AND, OR, NOT) is literal text. Terms without any
 * letter or digit are dropped (they could only ever produce an empty phrase). Duplicates drop.
 */
export function ftsTerms(terms: readonly string[]): FtsTerm[] {
  const seen = new Set<string>();
  const out: FtsTerm[] = [];
  for (const term of terms) {
    if (typeof term !== 'string' || !WORD_CHAR.test(term)) continue;
    const chars = Array.from(term.trim());
    const singleCjk = chars.length === 1 && new RegExp(CJK_RUN.source, 'u').test(chars[0] as string);
    const { body } = ftsDocument(term);
    const expression = singleCjk ? `uni : ${quote(chars[0] as string)}` : `body : ${quote(body)}`;
    if (seen.has(expression)) continue;
    seen.add(expression);
    out.push({
      term,
      expression,
      column: singleCjk ? 'uni' : 'body',
      tokens: unicode61Tokens(singleCjk ? (chars[0] as string) : body),
    });
  }
  return out;
}
