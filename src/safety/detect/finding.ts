import type { SensitiveCategory } from '../sensitive-category.js';

/**
 * One piece of sensitive data found in a string. `start`/`end` is the span that masking replaces;
 * `claimStart`/`claimEnd` (a superset) is the span no other finding may overlap, e.g. a whole
 * connection string of which only the password is masked.
 */
export interface Finding {
  category: SensitiveCategory;
  /** The finer kind: the provider of a secret (`openai`), a card brand, an IBAN country, an id name. */
  kind: string;
  start: number;
  end: number;
  claimStart: number;
  claimEnd: number;
  /** What replaces the span when the policy masks it. Never contains the value. */
  mask: string;
}

/** A finding whose claimed span is the masked span. */
export function finding(category: SensitiveCategory, kind: string, start: number, end: number, mask: string): Finding {
  return { category, kind, start, end, claimStart: start, claimEnd: end, mask };
}
