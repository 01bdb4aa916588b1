import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js/max';

import { finding, type Finding } from './finding.js';

/** A run that could hold a phone number: at least 7 digits among phone punctuation. */
const RUN = /[+(]?\d[\d ().\-/]{5,}\d/g;
/**
 * The international call prefix `00` (most of the world) written instead of `+`: at the start
 * of a run of digits and spaces (`0044 7911 123456`), never inside a dashed number
 * (`0053-7288-0823`, `…-0082387`).
 */
const IDD_00 = /(?<![\w+-])00(?=[1-9][\d ]{6,})/g;

/** Longest stretch handed to libphonenumber at once (a phone number is far shorter). */
const WINDOW = 40;
/** Characters of context before a run (`tel:`, a letter that makes it part of a word). */
const CONTEXT = 8;
/** Most windows read in one string (bounds the worst case; see {@link phoneWindows}). */
const MAX_WINDOWS = 16;

/**
 * The stretches of `text` worth handing to libphonenumber: each run of at least 7 digits among
 * phone punctuation, with a little context. libphonenumber's scan of a run of digit groups is
 * slow and grows with the run (a list of years, 64 characters: 0.7 ms; 100,000 characters of
 * `1 1 1…`: 0.9 s), so a run is read from its start and from each `+` or `(` in it (where an
 * international or bracketed number begins), {@link WINDOW} characters at a time, and at most
 * {@link MAX_WINDOWS} windows per string. A number inside a long table of digits without `+` or
 * `(` before it can therefore be missed; phones are kept by default.
 */
function phoneWindows(text: string): Array<[start: number, end: number]> {
  const out: Array<[number, number]> = [];
  RUN.lastIndex = 0;
  for (let match = RUN.exec(text); match !== null && out.length < MAX_WINDOWS; match = RUN.exec(text)) {
    let digits = 0;
    for (let i = 0; i < match[0].length && digits < 7; i++) {
      const c = match[0].charCodeAt(i);
      if (c >= 48 && c <= 57) digits++;
    }
    if (digits < 7) continue;
    const runEnd = match.index + match[0].length;
    const starts = [match.index];
    for (let i = 1; i < match[0].length; i++)
      if (match[0][i] === '+' || match[0][i] === '(') starts.push(match.index + i);
    for (const start of starts) {
      if (out.length >= MAX_WINDOWS) break;
      out.push([Math.max(0, start - CONTEXT), Math.min(text.length, start + WINDOW, runEnd + 2)]);
    }
  }
  return out;
}

function groupSizes(text: string): number[] {
  return text
    .split(/\D+/)
    .filter((g) => g !== '')
    .map((g) => g.length);
}

/**
 * A number written without `+` must be grouped the way its country writes it (what
 * libphonenumber's STRICT_GROUPING leniency checks, which libphonenumber-js does not offer):
 * `(415) 555-2671` and `415.555.2671` are phone numbers, `1121-3839-0872` and an order number
 * `617-5994929` are not. A leading country code or trunk prefix (`1-800-…`) may stand before it;
 * digits written without separators are not judged.
 */
function groupedLikeAPhone(written: string, national: string): boolean {
  if (written.trimStart().startsWith('+')) return true;
  const have = groupSizes(written);
  if (have.length === 1) return true;
  const want = groupSizes(national).join();
  return have.join() === want || (have[0] !== undefined && have[0] <= 2 && have.slice(1).join() === want);
}

/**
 * Phone numbers, found and validated by libphonenumber-js (Google's libphonenumber metadata,
 * the "max" set, so a number must fit its country's real numbering plan, not only its length).
 * Numbers written with `+` or `00` are found everywhere; national formats only when `region`
 * says which country they belong to.
 */
export function detectPhones(text: string, region: CountryCode | undefined): Finding[] {
  const windows = phoneWindows(text);
  if (windows.length === 0) return [];
  // ` +` keeps every offset where `00` stood, so spans map back onto the original text.
  const prepared = text.replace(IDD_00, ' +');
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const [from, to] of windows) {
    const found = findPhoneNumbersInText(
      prepared.slice(from, to),
      region === undefined ? {} : { defaultCountry: region },
    );
    for (const hit of found) {
      const startsAt = from + hit.startsAt;
      const endsAt = from + hit.endsAt;
      if (
        seen.has(`${startsAt}:${endsAt}`) ||
        !groupedLikeAPhone(prepared.slice(startsAt, endsAt), hit.number.formatNational())
      )
        continue;
      seen.add(`${startsAt}:${endsAt}`);
      const mask = `[phone +${hit.number.countryCallingCode} •••• ${hit.number.nationalNumber.slice(-4)}]`;
      const fromIdd = prepared[startsAt] === '+' && text.startsWith('00', startsAt - 1);
      out.push(finding('phone', hit.number.country ?? 'intl', fromIdd ? startsAt - 1 : startsAt, endsAt, mask));
    }
  }
  return out;
}
