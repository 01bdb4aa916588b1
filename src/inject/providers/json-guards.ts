/** A plain object view of unknown JSON-like input. */
export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): readonly unknown[] | null {
  return Array.isArray(value) ? (value as readonly unknown[]) : null;
}

/** Joins non-empty strings with a newline; null when none. */
export function joinTexts(texts: readonly string[]): string | null {
  const kept = texts.filter((t) => t.trim() !== '');
  return kept.length === 0 ? null : kept.join('\n');
}

/** `existing` followed by a blank line and `block`; just `block` when `existing` is empty. */
export function appendText(existing: string, block: string): string {
  return existing === '' ? block : `${existing}\n\n${block}`;
}

/** Walks `items` from the end and returns the first non-null text `read` gives for a user item. */
export function lastUserText(
  items: readonly unknown[],
  isUser: (item: JsonRecord) => boolean,
  read: (item: JsonRecord) => string | null,
): string | null {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i];
    if (!isRecord(item) || !isUser(item)) continue;
    const text = read(item);
    if (text !== null) return text;
  }
  return null;
}
