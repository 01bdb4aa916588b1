import { createHash } from 'node:crypto';

// Control and format characters (zero-width space, BOM, bidi marks) never make two texts differ.
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
const PUNCTUATION = /\p{P}/gu;
const SPACES = /\s+/gu;
// eslint-disable-next-line no-control-regex -- the whole ASCII range, controls included
const ASCII = /^[\x00-\x7f]*$/;
/** Runs of the ASCII characters the three classes above match, found by testing each (so the sets agree). */
const ASCII_GAPS = (() => {
  const members: string[] = [];
  for (let code = 0; code < 128; code++) {
    const char = String.fromCharCode(code);
    const gap = [INVISIBLE, PUNCTUATION, SPACES].some((re) => new RegExp(re.source, 'u').test(char));
    if (gap) members.push(`\\x${code.toString(16).padStart(2, '0')}`);
  }
  return new RegExp(`[${members.join('')}]+`, 'g');
})();

/**
 * What counts as "the same text" for episodes: Unicode NFKC (full-width letters, ligatures and
 * compatibility digits fold to their plain form), lowercase with `ß`→`ss` and final `ς`→`σ`,
 * invisible characters and punctuation turned into spaces, runs of whitespace collapsed, trimmed.
 * Punctuation becomes a space rather than vanishing so that `3.5` and `35` stay different.
 * Diacritics are kept (`año` is not `ano`), and so are symbols and emoji. A text made only of
 * punctuation keeps its NFKC form, so `?` and `!` stay distinct.
 */
export function normalizeTurnText(text: string): string {
  if (ASCII.test(text)) {
    // ASCII text is its own NFKC form and holds neither `ß` nor `ς`; every invisible, punctuation
    // or space character turns into a space and runs of spaces collapse: one pass does both.
    const folded = text.toLowerCase().replace(ASCII_GAPS, ' ').trim();
    if (folded !== '') return folded;
  }
  const nfkc = text.normalize('NFKC');
  const folded = nfkc
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/ς/g, 'σ')
    .replace(INVISIBLE, ' ')
    .replace(PUNCTUATION, ' ')
    .replace(SPACES, ' ')
    .trim();
  return folded || nfkc.replace(INVISIBLE, '').replace(SPACES, ' ').trim();
}

/** Version prefix of {@link turnTextKey}: a change to the normalisation gets a new prefix. */
export const TEXT_KEY_VERSION = 'n1';

/** The key episodes merge on: `n1:` and the SHA-256 (hex) of {@link normalizeTurnText}. */
export function turnTextKey(text: string): string {
  return `${TEXT_KEY_VERSION}:${createHash('sha256').update(normalizeTurnText(text)).digest('hex')}`;
}
