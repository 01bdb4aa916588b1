import creditCardType from 'credit-card-type';

import { finding, type Finding } from './finding.js';
import { luhnValid } from './luhn.js';

/** 13 to 19 digits, optionally grouped by single spaces or dashes (two spaces tolerated). */
const CANDIDATE = /(?<![\w.,/-])\d(?:(?: {1,2}|-)?\d){12,18}(?![\w/-]|[.,]\d)/g;
/** The fewest characters {@link CANDIDATE} matches. */
const SHORTEST = 13;

/** How people and card faces group the digits: fours (last group shorter), 4-6-5 (Amex), 4-6-4 (Diners). */
function groupedLikeACard(candidate: string): boolean {
  const groups = candidate.split(/ {1,2}|-/);
  if (groups.length === 1) return true;
  if (/ /.test(candidate) && /-/.test(candidate)) return false;
  const sizes = groups.map((g) => g.length).join('-');
  if (sizes === '4-6-5' || sizes === '4-6-4') return true;
  const last = groups[groups.length - 1] as string;
  return groups.slice(0, -1).every((g) => g.length === 4) && last.length >= 1 && last.length <= 4;
}

/** The brand whose prefix and lengths fit (credit-card-type's table), or null. Visa's old 13-digit length is accepted. */
export function cardBrand(digits: string): string | null {
  for (const type of creditCardType(digits)) {
    if (type.lengths.includes(digits.length)) return type.niceType;
  }
  return digits.length === 13 && digits.startsWith('4') ? 'Visa' : null;
}

/**
 * Payment card numbers: a card-like grouping, a valid Luhn check digit and a known brand for the
 * length. `from`: where to start looking (no digit before it). @default 0
 */
export function detectCards(text: string, from = 0): Finding[] {
  const out: Finding[] = [];
  if (text.length - from < SHORTEST) return out;
  CANDIDATE.lastIndex = from;
  for (let match = CANDIDATE.exec(text); match !== null; match = CANDIDATE.exec(text)) {
    const card = longestCard(match[0]);
    if (card === null) continue;
    const mask = `[card ${card.brand} •••• ${card.digits.slice(-4)}]`;
    out.push(finding('card', card.brand, match.index, match.index + card.length, mask));
  }
  return out;
}

/** The card at the start of `candidate`: all of it, or fewer groups (a CVV or a year may follow the number). */
function longestCard(candidate: string): { digits: string; brand: string; length: number } | null {
  let text = candidate;
  for (;;) {
    const digits = text.replace(/\D/g, '');
    if (digits.length < 13) return null;
    if (digits.length <= 19 && groupedLikeACard(text) && luhnValid(digits)) {
      const brand = cardBrand(digits);
      if (brand !== null) return { digits, brand, length: text.length };
    }
    const cut = text.search(/(?: {1,2}|-)\d+$/);
    if (cut <= 0) return null;
    text = text.slice(0, cut);
  }
}
