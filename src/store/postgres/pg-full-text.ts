/**
 * How memory text is indexed in PostgreSQL full text, and how plain terms become a safe tsquery.
 *
 * Document: the text is normalised exactly like Engram's tokenizer (`normalizeForMatching`:
 * NFKC, lowercase, Latin/Greek/Cyrillic diacritics folded), split into words of any script,
 * and each CJK run (Han, Hiragana, Katakana) is rewritten as its overlapping character bigrams
 * ("花生过敏" -> "花生 生过 过敏"), followed by every CJK character on its own (for 1-character
 * terms). The result goes through `to_tsvector('simple', …)`. Folding in the application rather
 * than with the `unaccent` extension keeps the index identical on every server (with or without
 * contrib, PGlite, managed services) and identical to the SQLite backend's matching; CJK bigrams
 * rather than `pg_trgm` because trigrams cannot match the 2-character words most Chinese terms
 * are, and the parser/locale of the server then never decides what a CJK token is.
 *
 * Query: every term is normalised the same way and written as a QUOTED tsquery phrase
 * (`'…'` with `'` doubled and `\` escaped); terms are OR-ed. Inside quotes the tsquery operators
 * (`&`, `|`, `!`, `<->`, `:*`, parentheses) and words like AND / NEAR are literal text, so user
 * input can never become query syntax. Terms with no letter or digit are dropped.
 */
import { normalizeForMatching } from '../../text/tokenizer.js';

const WORD = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{M}\p{Co}]*/gu;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]+/gu;
const CJK_ONE = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]$/u;
const HAS_WORD = /[\p{L}\p{N}\p{Co}]/u;

function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length < 2) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push((chars[i] as string) + (chars[i + 1] as string));
  return out;
}

const NON_ASCII = /[^\t\n\r -~]/;
const ASCII_WORD = /[a-z0-9]+/g;

/** Words of normalised text, CJK runs as bigrams; also returns the CJK characters one by one. */
function words(text: string): { body: string[]; uni: string[] } {
  const body: string[] = [];
  const uni: string[] = [];
  // Fast path, same result: printable ASCII is unchanged by NFKC / diacritic folding.
  if (!NON_ASCII.test(text)) return { body: text.toLowerCase().match(ASCII_WORD) ?? [], uni };
  for (const match of normalizeForMatching(text).matchAll(WORD)) {
    const word = match[0];
    let last = 0;
    for (const run of word.matchAll(CJK_RUN)) {
      const index = run.index ?? 0;
      if (index > last) body.push(word.slice(last, index));
      body.push(...bigrams(run[0]));
      uni.push(...Array.from(run[0]));
      last = index + run[0].length;
    }
    if (last < word.length) body.push(word.slice(last));
  }
  return { body, uni };
}

/**
 * The string indexed with `to_tsvector('simple', …)` for a memory text: the normalised words
 * (CJK as bigrams), then the CJK characters one by one. Lexemes never contain tsvector syntax.
 */
export function fullTextDocument(text: string): string {
  const { body, uni } = words(text);
  return uni.length === 0 ? body.join(' ') : `${body.join(' ')} ${uni.join(' ')}`;
}

/** Quotes one phrase as a tsquery literal. */
function quote(phrase: string): string {
  return `'${phrase.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * Builds the tsquery source (for `to_tsquery('simple', $1)`) matching any of `terms`, or null
 * when no term has a letter or digit. A multi-word term (or a CJK term of ≥ 2 characters) is a
 * phrase: its words must be adjacent. Duplicate terms are dropped.
 */
export function buildTsQuery(terms: readonly string[]): string | null {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const term of terms) {
    if (typeof term !== 'string' || !HAS_WORD.test(term)) continue;
    const trimmed = normalizeForMatching(term.trim());
    const phrase = CJK_ONE.test(trimmed) ? trimmed : words(trimmed).body.join(' ');
    if (phrase === '' || seen.has(phrase)) continue;
    seen.add(phrase);
    parts.push(quote(phrase));
  }
  return parts.length === 0 ? null : parts.join(' | ');
}
