import type { WarmReport } from '../../model/warm-report.js';
import { ALL_USERS } from './partition-rows.js';
import type { PartitionKey } from './partition-loader.js';
import { readRecentPartitions, writeRecentPartitionsSync } from './recent-partitions.js';
import type { VectorCache } from './vector-cache.js';

/** Lets other work run between two chunks of a background load. */
const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The vector cache's memory across restarts: which partitions it held, most recently used first,
 * kept in a small JSON file beside the database (tenant, user and model ids and sizes — no memory
 * content), so a new process can load them before its first query instead of during it.
 */
export class CacheWarmUp {
  private pending = false;
  private closed = false;

  constructor(private readonly file: string) {}

  /**
   * Remembers the cache's partitions soon: once for a burst of changes, on a later turn of the
   * event loop (a small synchronous write, so nothing is left in flight at close); failures are
   * ignored.
   */
  remember(cache: VectorCache): void {
    if (this.pending || this.closed) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      if (!this.closed) this.write(cache);
    });
  }

  /** Remembers them now and stops remembering (at close). */
  rememberNow(cache: VectorCache): void {
    this.write(cache);
    this.closed = true;
  }

  private write(cache: VectorCache): void {
    // An empty cache (everything evicted) keeps the last list.
    const recent = cache.recent();
    if (recent.length === 0) return;
    try {
      writeRecentPartitionsSync(this.file, recent);
    } catch {
      // A hint for the next start, not data: a read-only directory simply warms nothing.
    }
  }

  /**
   * Loads the remembered partitions, most recent first, as long as they fit in `maxBytes`
   * together (by the sizes they had), in the background (see `VectorCache.warm`).
   */
  async warm(cache: VectorCache, maxBytes: number, now: () => number = () => performance.now()): Promise<WarmReport> {
    const start = now();
    const chosen: PartitionKey[] = [];
    let budget = maxBytes;
    let skipped = 0;
    for (const p of readRecentPartitions(this.file)) {
      if (p.bytes > budget) skipped++;
      else {
        budget -= p.bytes;
        chosen.push({ tenant: p.tenant, model: p.model, dim: p.dim, user: p.user });
      }
    }
    const warmed = await cache.warm(chosen, pause);
    const sizes = new Map(cache.recent().map((p) => [JSON.stringify([p.tenant, p.model, p.dim, p.user]), p.memories]));
    return {
      partitions: warmed.map((k) => ({
        tenant: k.tenant,
        user: k.user === ALL_USERS ? null : k.user,
        model: k.model,
        dim: k.dim,
        memories: sizes.get(JSON.stringify([k.tenant, k.model, k.dim, k.user])) ?? 0,
      })),
      skipped: skipped + chosen.length - warmed.length,
      cachedMemories: cache.memoryCount,
      cachedBytes: cache.cachedBytes,
      ms: now() - start,
    };
  }
}
