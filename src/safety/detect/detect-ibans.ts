import { getCountrySpecifications, isValidIBAN } from 'ibantools';

import { finding, type Finding } from './finding.js';

const SPECS = getCountrySpecifications();

/** Country code and check digits, then the BBAN, possibly in groups split by single spaces or dashes. */
const CANDIDATE = /(?<![A-Za-z0-9])([A-Za-z]{2})(\d{2})((?:[ -]?[A-Za-z0-9]){8,32})/g;
/** The fewest characters {@link CANDIDATE} matches. */
const SHORTEST = 12;

/**
 * IBANs: the country's registered length (ISO 13616, via ibantools' country table), its BBAN
 * format and the mod-97 check. The candidate is cut to the country's length, so the words after
 * an IBAN never join it. `from`: where to start looking (no IBAN starts before it). @default 0
 */
export function detectIbans(text: string, from = 0): Finding[] {
  const out: Finding[] = [];
  if (text.length - from < SHORTEST) return out;
  const pattern = CANDIDATE;
  pattern.lastIndex = from;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    // The candidate may run on into the next words; resume right after what was used.
    pattern.lastIndex = match.index + 1;
    const country = (match[1] as string).toUpperCase();
    const length = SPECS[country]?.chars;
    if (typeof length !== 'number') continue;
    const cut = cutToLength(match[3] as string, length - 4);
    if (cut === null) continue;
    const electronic = `${country}${match[2] as string}${cut.alnum.toUpperCase()}`;
    if (!isValidIBAN(electronic)) continue;
    const end = match.index + 4 + cut.consumed;
    out.push(finding('iban', country, match.index, end, `[iban ${country} •••• ${electronic.slice(-4)}]`));
    pattern.lastIndex = end;
  }
  return out;
}

/** The first `want` alphanumerics of `rest` and how many characters (with separators) they took. */
function cutToLength(rest: string, want: number): { alnum: string; consumed: number } | null {
  let alnum = '';
  let i = 0;
  for (; i < rest.length && alnum.length < want; i++) {
    const ch = rest[i] as string;
    if (ch !== ' ' && ch !== '-') alnum += ch;
  }
  if (alnum.length < want) return null;
  // The next character must not continue the number (an IBAN longer than its country's length is not one).
  if (/[A-Za-z0-9]/.test(rest[i] ?? '')) return null;
  return { alnum, consumed: i };
}
