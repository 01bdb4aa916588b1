/**
 * Which side of the cut-over recent scopes were on, for `ttlMs`. A stale answer never changes
 * results, only the path: a scope that grew past the cut-over is still scanned exactly until the
 * entry expires, and one that shrank below it is walked in the index, which comes back short
 * and falls back to the exact scan.
 */
export class ScopeSizeCache {
  private readonly entries = new Map<string, { small: boolean; n: number; at: number }>();

  /** @param ttlMs @default 30000  @param maxEntries @default 10000 */
  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): { small: boolean; n: number } | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined || this.now() - hit.at > this.ttlMs) return undefined;
    return hit;
  }

  set(key: string, value: { small: boolean; n: number }): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { ...value, at: this.now() });
  }

  /** Forgets everything (e.g. after a bulk load). */
  clear(): void {
    this.entries.clear();
  }
}
