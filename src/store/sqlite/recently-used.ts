/**
 * Values by key, at most `max` of them: taking a value makes it the most recently used, and the
 * least recently used goes when a new one would exceed `max`. Remembers per-filter work of the
 * SQLite caches (a partition's filter matches, a lexical index's filter verdicts).
 */
export class RecentlyUsed<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly max: number) {}

  /** The remembered values, least recently used first. */
  values(): IterableIterator<T> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key` if remembered and `fresh` accepts it, else `make()`'s (remembered now). */
  take(key: string, make: () => T, fresh: (value: T) => boolean = () => true): T {
    const known = this.entries.get(key);
    const value = known !== undefined && fresh(known) ? known : make();
    // Map keeps insertion order: re-inserting moves the key to the most recently used end.
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
