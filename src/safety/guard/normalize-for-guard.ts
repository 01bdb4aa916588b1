import type { ScanNote } from '../scan-note.js';

/**
 * The text the guard's rules read: what a model would read, without the disguises that keep a
 * pattern from matching.
 *
 * - NFKC, so full-width and styled letters (`ｉｇｎｏｒｅ`, `𝐢𝐠𝐧𝐨𝐫𝐞`) become plain ones;
 * - invisible characters (zero-width spaces and joiners, soft hyphens, bidi controls) removed;
 * - Cyrillic and Greek letters that look Latin folded to Latin (a subset of Unicode TR39
 *   confusables), so `іgnоre` reads `ignore`;
 * - letters spelled out one by one (`I G N O R E`, `i.g.n.o.r.e`) joined.
 *
 * Offsets are not preserved; the result is only matched, never stored. `note.nothingWithin` is
 * set to false when the text is not plain ASCII without spelled-out letters (a part of it might
 * not read as the same characters).
 */
export function normalizeForGuard(text: string, note?: ScanNote): string {
  let out = text;
  if (NON_ASCII.test(out)) {
    if (note !== undefined) note.nothingWithin = false;
    out = out.normalize('NFKC').replace(INVISIBLE, '');
    if (CONFUSABLE_RANGE.test(out)) out = out.replace(CONFUSABLE_RANGE_G, (ch) => CONFUSABLES.get(ch) ?? ch);
  }
  if (SPELLED_HINT.test(out) && SPELLED.test(out)) {
    if (note !== undefined) note.nothingWithin = false;
    out = out.replace(SPELLED_G, (run) => run.replace(/[ .]/g, ''));
  }
  return out;
}

const NON_ASCII = /[\u0080-\uFFFF]/;
// Marks that combine with the character before them (Hangul filler, Khmer inherent vowels,
// grapheme joiner, variation selectors) stand outside the class.
const INVISIBLE =
  /[\u00AD\u061C\u115F\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF]|\u034F|\u1160|\u17B4|\u17B5|\u180B|\u180C|\u180D|\uFE00|\uFE01|\uFE02|\uFE03|\uFE04|\uFE05|\uFE06|\uFE07|\uFE08|\uFE09|\uFE0A|\uFE0B|\uFE0C|\uFE0D|\uFE0E|\uFE0F/g;
const CONFUSABLE_RANGE = /[\u0370-\u03FF\u0400-\u052F]/;
const CONFUSABLE_RANGE_G = /[\u0370-\u03FF\u0400-\u052F]/g;
/** Four or more single letters separated by single spaces or dots. */
/** A cheap first test for {@link SPELLED}: two single letters in a row after a space or at the start. */
const SPELLED_HINT = /(?:^|[ .])[A-Za-z][ .][A-Za-z][ .]/;
const SPELLED = /(?<![A-Za-z])(?:[A-Za-z][ .]){3,}[A-Za-z](?![A-Za-z])/;
const SPELLED_G = new RegExp(SPELLED.source, 'g');

const CONFUSABLES = new Map<string, string>(
  Object.entries({
    // Cyrillic
    а: 'a',
    е: 'e',
    о: 'o',
    р: 'p',
    с: 'c',
    у: 'y',
    х: 'x',
    і: 'i',
    ј: 'j',
    ѕ: 's',
    ԁ: 'd',
    ӏ: 'l',
    һ: 'h',
    ԛ: 'q',
    ԝ: 'w',
    А: 'A',
    В: 'B',
    Е: 'E',
    К: 'K',
    М: 'M',
    Н: 'H',
    О: 'O',
    Р: 'P',
    С: 'C',
    Т: 'T',
    Х: 'X',
    І: 'I',
    Ј: 'J',
    Ѕ: 'S',
    // Greek
    ο: 'o',
    α: 'a',
    ε: 'e',
    ι: 'i',
    κ: 'k',
    ν: 'v',
    ρ: 'p',
    τ: 't',
    υ: 'u',
    χ: 'x',
    Α: 'A',
    Β: 'B',
    Ε: 'E',
    Ζ: 'Z',
    Η: 'H',
    Ι: 'I',
    Κ: 'K',
    Μ: 'M',
    Ν: 'N',
    Ο: 'O',
    Ρ: 'P',
    Τ: 'T',
    Υ: 'Y',
    Χ: 'X',
  }),
);
