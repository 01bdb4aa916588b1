// A letter, then an apostrophe (ASCII or typographic) and a lone "s": the English possessive.
const POSSESSIVE = /(\p{L})['\u2019]s(?![\p{L}\p{N}])/gu;

/**
 * The text with English possessive endings removed ("Luis's job" → "Luis job"). The tokenizers
 * split "Luis's" into `luis` + `s`, and in a query that stray `s` matches every memory holding
 * any possessive; stripping it from queries leaves the name to match. Documents keep their
 * tokens (their lengths are the full-text index's).
 */
export function stripPossessives(text: string): string {
  return text.includes("'") || text.includes('\u2019') ? text.replace(POSSESSIVE, '$1') : text;
}
