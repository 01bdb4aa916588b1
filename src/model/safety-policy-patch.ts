/**
 * The vocabulary of write safety that callers use: the categories of sensitive data, what a
 * policy does with each, and a partial policy as one level (instance, tenant, call) sets it. The
 * engine that applies it lives in `src/safety`; these types sit here so the API's options can
 * name them.
 */

/** The kinds of sensitive data the write guard detects, in the order they win an overlap. */
export const SENSITIVE_CATEGORIES = ['secret', 'card', 'iban', 'nationalId', 'phone', 'email'] as const;

/**
 * - `secret`: API keys and tokens, private keys, JWTs, passwords and credentials in URLs;
 * - `card`: payment card numbers (Luhn-checked, known brand and length);
 * - `iban`: international bank account numbers (country length and mod-97 checked);
 * - `nationalId`: national identifiers matched by configured patterns (none by default);
 * - `phone`: phone numbers valid for their country;
 * - `email`: e-mail addresses.
 */
export type SensitiveCategory = (typeof SENSITIVE_CATEGORIES)[number];

/** True when `value` names a {@link SensitiveCategory}. */
export function isSensitiveCategory(value: unknown): value is SensitiveCategory {
  return typeof value === 'string' && (SENSITIVE_CATEGORIES as readonly string[]).includes(value);
}

/** What happens to sensitive data of one category on write. */
export type SensitiveAction = 'keep' | 'mask' | 'reject';
/** What happens to text that tries to instruct the model. */
export type PoisoningAction = 'off' | 'flag' | 'reject';

/**
 * A national identifier to detect, by pattern. Patterns are regular-expression source text so a
 * policy stays plain data (config files, tenant settings); they come from the operator, never
 * from a request.
 */
export interface NationalIdRule {
  /** Shown in the mask, `[id:us-ssn]`. Letters, digits and dashes. */
  name: string;
  /** Regular-expression source; the whole match is the id. */
  pattern: string;
  /** Extra flags (`i`, `u`); `g` is always added. @default '' */
  flags?: string | undefined;
  /** A check the digits of the match must pass. @default 'none' */
  checksum?: 'none' | 'luhn' | undefined;
}

/**
 * A partial write-safety policy, as configured at one level: the instance (`EngramOptions.safety`),
 * the tenant (the server's tenant settings) or one call (`WriteOptions.safety`, which can only
 * tighten: an action moves towards `reject`, the guard can be switched on but not off, national
 * ids are added by preset name only).
 */
export interface SafetyPolicyPatch {
  enabled?: boolean | undefined;
  actions?: Partial<Record<SensitiveCategory, SensitiveAction>> | undefined;
  phoneRegion?: string | null | undefined;
  nationalIds?: readonly (string | NationalIdRule)[] | undefined;
  poisoning?: { action?: PoisoningAction | undefined; threshold?: number | undefined } | undefined;
}
