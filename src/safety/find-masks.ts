import type { SensitiveCategory } from './sensitive-category.js';

/** A mask the write guard put in a text earlier, as a report counts it (never a value: a mask holds none). */
export interface FoundMask {
  category: SensitiveCategory;
  /**
   * As the mask shows it: a secret's label (its provider; `password` for a connection string's),
   * a card's brand, an IBAN's country, a phone's `+` calling code, an id's name.
   */
  kind: string;
  start: number;
  end: number;
}

/**
 * The masks the detectors write (`detect/*.ts`): `[secret:openai]`, `[card Visa •••• 4242]`,
 * `[iban DE •••• 3000]`, `[email •••@example.org]`, `[phone +44 •••• 0958]`, `[id:us-ssn]`.
 */
const MASK =
  /\[(?:secret:([a-z0-9-]+)|card ([A-Za-z][A-Za-z ]{0,30}) •••• \d{1,4}|iban ([A-Z]{2}) •••• [A-Z0-9]{1,4}|email •••@([^\s\]]{1,253})|phone (\+\d{1,3}) •••• \d{1,4}|id:([a-z0-9-]+))\]/g;

/**
 * Every mask of the write guard in `text`, in text order. Formation masks the facts an LLM
 * proposes before a second LLM rewrites them; when what it wrote is masked again on its way into
 * the store, these are counted in the memory's report like the values masked then, and never
 * masked a second time.
 */
export function findMasks(text: string): FoundMask[] {
  const out: FoundMask[] = [];
  if (!text.includes('[')) return out;
  MASK.lastIndex = 0;
  for (let m = MASK.exec(text); m !== null; m = MASK.exec(text)) {
    const at = { start: m.index, end: m.index + m[0].length };
    if (m[1] !== undefined) out.push({ category: 'secret', kind: m[1], ...at });
    else if (m[2] !== undefined) out.push({ category: 'card', kind: m[2], ...at });
    else if (m[3] !== undefined) out.push({ category: 'iban', kind: m[3], ...at });
    else if (m[4] !== undefined) out.push({ category: 'email', kind: 'email', ...at });
    else if (m[5] !== undefined) out.push({ category: 'phone', kind: m[5], ...at });
    else if (m[6] !== undefined) out.push({ category: 'nationalId', kind: m[6], ...at });
  }
  return out;
}
