import type { Tokenizer } from '../text/tokenizer.js';

/**
 * Remembers each memory's tokens, keyed by id and last update, so a candidate that comes back in
 * query after query is tokenised once. Least recently used entries are dropped past `maxEntries`.
 */
export class TokenCache {
  private readonly entries = new Map<string, string[]>();

  /** @param maxEntries Cached memories. @default 50000 */
  constructor(private readonly maxEntries = 50_000) {}

  /** Tokens of `text`, from the cache when this (tokenizer, id, updatedAt) was seen before. */
  tokens(tokenize: Tokenizer, tokenizerName: string, id: string, updatedAt: string, text: string): string[] {
    const key = `${tokenizerName}\u0000${id}\u0000${updatedAt}`;
    const hit = this.entries.get(key);
    if (hit) {
      // Re-insert to mark as recently used (Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const tokens = tokenize(text);
    this.entries.set(key, tokens);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return tokens;
  }

  get size(): number {
    return this.entries.size;
  }
}
