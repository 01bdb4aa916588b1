import type { CountryCode } from 'libphonenumber-js/max';

import { SENSITIVE_CATEGORIES, type SensitiveCategory } from '../sensitive-category.js';
import { detectCards } from './detect-cards.js';
import { detectEmails } from './detect-emails.js';
import { detectIbans } from './detect-ibans.js';
import { detectPhones } from './detect-phones.js';
import { detectSecrets } from './detect-secrets.js';
import type { Finding } from './finding.js';
import { detectNationalIds, type CompiledNationalId } from './national-ids.js';

/** What detection needs beyond the text. */
export interface DetectOptions {
  /** Region of phone numbers written without a country code. @default undefined (only `+…` / `00…` numbers) */
  phoneRegion?: CountryCode | undefined;
  /** National id rules to run. @default [] */
  nationalIds?: readonly CompiledNationalId[] | undefined;
  /** Only these categories are looked for (the policy skips the ones it keeps). @default all */
  categories?: ReadonlySet<SensitiveCategory> | undefined;
}

const RANK = new Map<SensitiveCategory, number>(SENSITIVE_CATEGORIES.map((c, i) => [c, i]));

function countDigits(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

/**
 * Every piece of sensitive data in `text`, without overlaps, in text order. Where two findings
 * claim the same characters, the higher category (secret, card, iban, national id, phone, e-mail)
 * wins, then the longer one, then the earlier rule.
 */
export function detectSensitive(text: string, options: DetectOptions = {}): Finding[] {
  const wants = (c: SensitiveCategory): boolean => options.categories === undefined || options.categories.has(c);
  const all: Finding[] = [];
  if (wants('secret')) all.push(...detectSecrets(text));
  const digits = countDigits(text);
  if (digits >= 13 && wants('card')) all.push(...detectCards(text));
  if (digits >= 4 && wants('iban')) all.push(...detectIbans(text));
  if (options.nationalIds !== undefined && options.nationalIds.length > 0 && wants('nationalId')) {
    all.push(...detectNationalIds(text, options.nationalIds));
  }
  if (digits >= 7 && wants('phone')) all.push(...detectPhones(text, options.phoneRegion));
  if (wants('email')) all.push(...detectEmails(text));
  return all.length <= 1 ? all : resolveOverlaps(all);
}

function resolveOverlaps(all: Finding[]): Finding[] {
  const ordered = all
    .map((f, i) => ({ f, i }))
    .sort(
      (a, b) =>
        (RANK.get(a.f.category) ?? 0) - (RANK.get(b.f.category) ?? 0) ||
        a.i - b.i ||
        b.f.claimEnd - b.f.claimStart - (a.f.claimEnd - a.f.claimStart),
    );
  const kept: Finding[] = [];
  for (const { f } of ordered) {
    if (kept.every((k) => f.claimEnd <= k.claimStart || f.claimStart >= k.claimEnd)) kept.push(f);
  }
  return kept.sort((a, b) => a.start - b.start);
}
