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
