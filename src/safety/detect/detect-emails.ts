import { finding, type Finding } from './finding.js';

/**
 * E-mail addresses as people write them: the WHATWG HTML "valid e-mail address" local part
 * (atext and dots), a domain of RFC 1034 labels and an alphabetic top-level domain. Not after
 * `/`, so the user of `https://user@host` is not taken for an address.
 */
const EMAIL =
  /(?<![A-Za-z0-9._%+/-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_+-])?@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24})(?![A-Za-z0-9-]|\.[A-Za-z0-9])/g;

/** E-mail addresses; the mask keeps the domain: `[email •••@example.org]`. */
export function detectEmails(text: string): Finding[] {
  if (!text.includes('@')) return [];
  const out: Finding[] = [];
  EMAIL.lastIndex = 0;
  for (let match = EMAIL.exec(text); match !== null; match = EMAIL.exec(text)) {
    const domain = (match[1] as string).toLowerCase();
    out.push(finding('email', 'email', match.index, match.index + match[0].length, `[email •••@${domain}]`));
  }
  return out;
}
