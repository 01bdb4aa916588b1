import type { Tokenizer } from '../text/tokenizer.js';

interface Entry {
  updatedAt: string;
  tokens: string[];
  /** Tick of the last use, for least-recently-used eviction. */
  used: number;
}

/** The cache seen from one (tokenizer, tenant): lookups by memory id. */
export interface TokenCacheView {
  /** The cached tokens of this memory version, without its text; undefined when unknown. */
  peek(id: string, updatedAt: string): string[] | undefined;
  /** Tokens of `text`, from the cache when this memory version was tokenised before. */
  tokens(tokenize: Tokenizer, id: string, updatedAt: string, text: string): string[];
}

/**
 * Remembers each memory's tokens, per tokenizer and tenant (ids are unique per tenant only) and
 * valid for one `updatedAt`, so a candidate that comes back in query after query is tokenised
 * once. Past `maxEntries`, the least recently used tenth is dropped in one pass.
 */
export class TokenCache {
  private readonly scopes = new Map<string, Map<string, Entry>>();
  private count = 0;
  private tick = 0;

  /** @param maxEntries Cached memories. @default 50000 */
  constructor(private readonly maxEntries = 50_000) {}

  /** Lookups for one tokenizer and tenant. */
  view(tokenizerName: string, tenant: string): TokenCacheView {
    const scopeKey = `${tokenizerName}\u0000${tenant}`;
    const entries = (): Map<string, Entry> => {
      let map = this.scopes.get(scopeKey);
      if (map === undefined) this.scopes.set(scopeKey, (map = new Map()));
      return map;
    };
    return {
      peek: (id, updatedAt) => {
        const hit = this.scopes.get(scopeKey)?.get(id);
        if (hit === undefined || hit.updatedAt !== updatedAt) return undefined;
        hit.used = ++this.tick;
        return hit.tokens;
      },
      tokens: (tokenize, id, updatedAt, text) => {
        const map = entries();
        const hit = map.get(id);
        if (hit !== undefined && hit.updatedAt === updatedAt) {
          hit.used = ++this.tick;
          return hit.tokens;
        }
        const tokens = tokenize(text);
        if (hit === undefined) this.count++;
        map.set(id, { updatedAt, tokens, used: ++this.tick });
        if (this.count > this.maxEntries) this.evict();
        return tokens;
      },
    };
  }

  /** Cached memories. */
  get size(): number {
    return this.count;
  }

  private evict(): void {
    const all: Array<[Map<string, Entry>, string, number]> = [];
    for (const map of this.scopes.values()) for (const [id, entry] of map) all.push([map, id, entry.used]);
    all.sort((a, b) => a[2] - b[2]);
    const drop = Math.max(1, this.count - Math.floor(this.maxEntries * 0.9));
    for (let i = 0; i < drop && i < all.length; i++) {
      const [map, id] = all[i] as [Map<string, Entry>, string, number];
      map.delete(id);
      this.count--;
    }
    for (const [key, map] of this.scopes) if (map.size === 0) this.scopes.delete(key);
  }
}
