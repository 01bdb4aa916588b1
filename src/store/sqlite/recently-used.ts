import { LRUCache } from 'lru-cache';

/**
 * Values by key, at most `max` of them: taking a value makes it the most recently used, and the
 * least recently used goes when a new one would exceed `max` (`lru-cache`, as the row cache).
 * Remembers per-filter work of the SQLite caches (a partition's filter matches, a lexical index's
 * filter verdicts) and the store's reads while nothing changes.
 */
export class RecentlyUsed<T extends object> {
  private readonly entries: LRUCache<string, T>;

  constructor(max: number) {
    this.entries = new LRUCache<string, T>({ max });
  }

  /** The remembered values, least recently used first. */
  *values(): IterableIterator<T> {
    for (const value of this.entries.rvalues()) if (value !== undefined) yield value;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key` if remembered and `fresh` accepts it, else `make()`'s (remembered now). */
  take(key: string, make: () => T, fresh: (value: T) => boolean = () => true): T {
    // `get` makes the key the most recently used.
    const known = this.entries.get(key);
    if (known !== undefined && fresh(known)) return known;
    const value = make();
    this.entries.set(key, value);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
