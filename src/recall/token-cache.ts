import type { Tokenizer } from '../text/tokenizer.js';

interface Entry {
  updatedAt: string;
  value: unknown;
  /** Tick of the last use, for least-recently-used eviction. */
  used: number;
}

/** The cache seen from one (tokenizer or profile, tenant): lookups by memory id. */
export interface TokenCacheView<T = string[]> {
  /** The cached value of this memory version, without its text; undefined when unknown. */
  peek(id: string, updatedAt: string): T | undefined;
  /** The value of this memory version: from the cache, or made by `make` and remembered. */
  get(id: string, updatedAt: string, make: () => T): T;
  /** Tokens of `text`, from the cache when this memory version was tokenised before. */
  tokens(tokenize: Tokenizer, id: string, updatedAt: string, text: string): string[];
}

/**
 * Remembers what ranking derives from each memory (its tokens, or a profile's whole pool
 * document), per tokenizer or profile and tenant (ids are unique per tenant only) and valid for
 * one `updatedAt`, so a candidate that comes back in query after query is tokenised once. Past
 * `maxEntries`, the least recently used tenth is dropped in one pass. One name holds one kind of
 * value: callers name their view after what they store.
 */
export class TokenCache {
  private readonly scopes = new Map<string, Map<string, Entry>>();
  private count = 0;
  private tick = 0;

  /** @param maxEntries Cached memories. @default 50000 */
  constructor(private readonly maxEntries = 50_000) {}

  /** Lookups for one tokenizer (or profile) and tenant. */
  view<T = string[]>(name: string, tenant: string): TokenCacheView<T> {
    const scopeKey = `${name}\u0000${tenant}`;
    const entries = (): Map<string, Entry> => {
      let map = this.scopes.get(scopeKey);
      if (map === undefined) this.scopes.set(scopeKey, (map = new Map()));
      return map;
    };
    const peek = (id: string, updatedAt: string): T | undefined => {
      const hit = this.scopes.get(scopeKey)?.get(id);
      if (hit === undefined || hit.updatedAt !== updatedAt) return undefined;
      hit.used = ++this.tick;
      return hit.value as T;
    };
    const get = (id: string, updatedAt: string, make: () => T): T => {
      const map = entries();
      const hit = map.get(id);
      if (hit !== undefined && hit.updatedAt === updatedAt) {
        hit.used = ++this.tick;
        return hit.value as T;
      }
      const value = make();
      if (hit === undefined) this.count++;
      map.set(id, { updatedAt, value, used: ++this.tick });
      if (this.count > this.maxEntries) this.evict();
      return value;
    };
    // `tokens` is `get` for a view that holds token lists (the default `T`).
    const tokens = (tokenize: Tokenizer, id: string, updatedAt: string, text: string): string[] =>
      get(id, updatedAt, () => tokenize(text) as T) as string[];
    return { peek, get, tokens };
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
