import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js/max';

import { finding, type Finding } from './finding.js';

/** A run that could hold a phone number: at least 7 digits among phone punctuation. */
const RUN = /[+(]?\d[\d ().\-/]{5,}\d/g;
/** The international call prefix `00` (ITU-T E.164 / most of the world) written instead of `+`. */
const IDD_00 = /(?<![\w+])00(?=[1-9])/g;

function mayHoldPhone(text: string): boolean {
  for (const match of text.matchAll(RUN)) {
    let digits = 0;
    for (const ch of match[0]) if (ch >= '0' && ch <= '9') digits++;
    if (digits >= 7) return true;
  }
  return false;
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
  return found.map((hit) => {
    const national = hit.number.nationalNumber;
    const mask = `[phone +${hit.number.countryCallingCode} •••• ${national.slice(-4)}]`;
    const fromIdd = prepared[hit.startsAt] === '+' && text.startsWith('00', hit.startsAt - 1);
    const start = fromIdd ? hit.startsAt - 1 : hit.startsAt;
    return finding('phone', hit.number.country ?? 'intl', start, hit.endsAt, mask);
  });
}
