import type { CountryCode } from 'libphonenumber-js/max';

import { SENSITIVE_CATEGORIES, type SensitiveCategory } from '../sensitive-category.js';
import { detectCards } from './detect-cards.js';
import { detectEmails } from './detect-emails.js';
import { detectIbans } from './detect-ibans.js';
import { detectPhones } from './detect-phones.js';
import { detectSecrets, secretTriggers } from './detect-secrets.js';
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

const NONE: readonly Finding[] = Object.freeze([]);

const RANK = new Map<SensitiveCategory, number>(SENSITIVE_CATEGORIES.map((c, i) => [c, i]));

const DIGIT = /\d/;

/** Nothing detected is shorter (`a@b.co`, `pwd=abcd`). */
const MIN_LENGTH = 6;

function append(into: readonly Finding[], more: readonly Finding[]): readonly Finding[] {
  if (more.length === 0) return into;
  if (into.length === 0) return more;
  return [...into, ...more];
}

/**
 * Whether a text holds a trigger of the secret rules. A part of a text without one, bounded by
 * non-word characters, has none either (a literal absent from a text is absent from its parts),
 * so its scan can be skipped: see `CleanStrings`.
 */
export interface SecretTriggerNote {
  /** In: the caller knows the text has none (the scan is skipped). Out: it has none, or secrets are not looked for. */
  none: boolean;
}

/**
 * Every piece of sensitive data in `text`, without overlaps, in text order. Where two findings
 * claim the same characters, the higher category (secret, card, iban, national id, phone, e-mail)
 * wins, then the longer one, then the earlier rule. `triggers`: see {@link SecretTriggerNote}.
 */
export function detectSensitive(
  text: string,
  options: DetectOptions = {},
  triggers?: SecretTriggerNote,
): readonly Finding[] {
  if (text.length < MIN_LENGTH) {
    if (triggers !== undefined) triggers.none = true;
    return NONE;
  }
  const only = options.categories;
  let all = NONE;
  if (only !== undefined && !only.has('secret')) {
    if (triggers !== undefined) triggers.none = true;
  } else if (triggers?.none !== true) {
    const triggered = secretTriggers(text);
    if (triggers !== undefined) triggers.none = triggered === null;
    if (triggered !== null) all = detectSecrets(text, triggered);
  }
  // Cards, IBANs and phone numbers all hold digits, none before the text's first one less two
  // (an IBAN's country letters): one search for it rules all three out of most prose, and
  // starts their scans there. (Counting the digits instead cost more than it saved.)
  const digit = text.search(DIGIT);
  if (digit !== -1) {
    if (only === undefined || only.has('card')) all = append(all, detectCards(text, digit));
    if (only === undefined || only.has('iban')) all = append(all, detectIbans(text, Math.max(0, digit - 2)));
  }
  const ids = options.nationalIds;
  if (ids !== undefined && ids.length > 0 && (only === undefined || only.has('nationalId')))
    all = append(all, detectNationalIds(text, ids));
  if (digit !== -1 && (only === undefined || only.has('phone'))) all = append(all, detectPhones(text, options.phoneRegion));
  if (only === undefined || only.has('email')) all = append(all, detectEmails(text));
  return all.length <= 1 ? all : resolveOverlaps([...all]);
}

function resolveOverlaps(all: readonly Finding[]): Finding[] {
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
