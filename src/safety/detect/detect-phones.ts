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

function mayHoldPhone(text: string): boolean {
  for (const match of text.matchAll(RUN)) {
    let digits = 0;
    for (const ch of match[0]) if (ch >= '0' && ch <= '9') digits++;
    if (digits >= 7) return true;
  }
  return false;
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
  if (!mayHoldPhone(text)) return [];
  // ` +` keeps every offset where `00` stood, so spans map back onto the original text.
  const prepared = text.replace(IDD_00, ' +');
  const found = findPhoneNumbersInText(prepared, region === undefined ? {} : { defaultCountry: region });
  return found
    .filter((hit) => groupedLikeAPhone(prepared.slice(hit.startsAt, hit.endsAt), hit.number.formatNational()))
    .map((hit) => {
      const national = hit.number.nationalNumber;
      const mask = `[phone +${hit.number.countryCallingCode} •••• ${national.slice(-4)}]`;
      const fromIdd = prepared[hit.startsAt] === '+' && text.startsWith('00', hit.startsAt - 1);
      const start = fromIdd ? hit.startsAt - 1 : hit.startsAt;
      return finding('phone', hit.number.country ?? 'intl', start, hit.endsAt, mask);
    });
}
