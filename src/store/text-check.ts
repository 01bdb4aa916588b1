import { EngramError } from '../model/errors.js';

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `value` is well-formed UTF-16 (no lone surrogates) and contains no NUL character.
 *
 * Policy (every backend): such text is REJECTED, never silently repaired. A lone surrogate cannot
 * be encoded as UTF-8 (SQLite would store U+FFFD, PostgreSQL would refuse), and NUL is not
 * allowed in PostgreSQL text/jsonb, so accepting either would make backends disagree.
 */
export function isStorableText(value: string): boolean {
  return !LONE_SURROGATE.test(value) && !value.includes('\u0000');
}

/** Throws EngramError('INVALID_TEXT') naming `field` when {@link isStorableText} is false. */
export function assertStorableText(value: string, field: string, id?: string): void {
  if (!isStorableText(value)) {
    throw new EngramError('INVALID_TEXT', `${field} contains a lone surrogate or a NUL character`, {
      details: { field, id },
    });
  }
}

/** Checks every string (keys and values) inside a JSON-like value. */
export function assertStorableJson(value: unknown, field: string, id?: string, depth = 0): void {
  if (depth > 64) {
    throw new EngramError('INVALID_INPUT', `${field} is nested too deeply`, { details: { field, id } });
  }
  if (typeof value === 'string') {
    assertStorableText(value, field, id);
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new EngramError('INVALID_INPUT', `${field} contains a non-finite number`, { details: { field, id } });
    }
  } else if (Array.isArray(value)) {
    for (const item of value) assertStorableJson(item, field, id, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      assertStorableText(key, field, id);
      assertStorableJson(item, field, id, depth + 1);
    }
  } else if (value !== null && typeof value !== 'boolean' && value !== undefined) {
    throw new EngramError('INVALID_INPUT', `${field} is not JSON`, { details: { field, id } });
  }
}
