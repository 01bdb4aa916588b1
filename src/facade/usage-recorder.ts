import { mergeUsage } from '../store/merge-usage.js';
import type { MemoryStore, UsageEntry } from '../store/memory-store.js';
import { replayUsage } from '../store/replay-usage.js';

/** How long recalled memories' uses wait to be written together, by default. */
export const DEFAULT_USAGE_FLUSH_MS = 100;

/** What {@link UsageRecorder} writes with. */
export interface UsageRecorderDeps {
  store: MemoryStore;
  clock: () => Date;
  withRetry: <T>(fn: () => Promise<T>) => Promise<T>;
  /** A recording that failed (after its retries): reported, never thrown. */
  onError: (error: unknown) => void;
  /** How long uses wait to be written together. @default 100 ({@link DEFAULT_USAGE_FLUSH_MS}) */
  flushAfterMs?: number | undefined;
}

/**
 * Records the use of recalled memories in the background, after the recall has answered. Uses
 * gather for `flushAfterMs` and are then written in one store call per tenant (`addUsage`, else
 * replayed through `recordUsage`): a busy server commits (and, on SQLite, syncs) once per window
 * instead of once per recall. A failure is reported, not thrown; {@link UsageRecorder.settled}
 * writes what is gathered at once and waits for what is in flight.
 */
export class UsageRecorder {
  private gathered = new Map<string, UsageEntry[]>();
  private timer: NodeJS.Timeout | undefined;
  private readonly writing = new Set<Promise<void>>();

  constructor(private readonly deps: UsageRecorderDeps) {}

  /** Records that these memories were recalled now; written within `flushAfterMs`. */
  record(tenant: string, ids: string[]): void {
    if (ids.length === 0) return;
    const at = this.deps.clock().toISOString();
    let entries = this.gathered.get(tenant);
    if (entries === undefined) this.gathered.set(tenant, (entries = []));
    for (const id of ids) entries.push({ id, count: 1, lastUsedAt: at });
    this.timer ??= setTimeout(() => this.flush(), this.deps.flushAfterMs ?? DEFAULT_USAGE_FLUSH_MS);
  }

  /** Writes what is gathered now, then resolves once every write started so far has ended, whatever its outcome. */
  async settled(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.writing]);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const gathered = this.gathered;
    this.gathered = new Map();
    for (const [tenant, entries] of gathered) {
      const usage = mergeUsage(entries);
      const write = this.deps
        .withRetry(() => this.write(tenant, usage))
        .catch((error: unknown) => this.deps.onError(error))
        .finally(() => this.writing.delete(write));
      this.writing.add(write);
    }
  }

  private write(tenant: string, usage: UsageEntry[]): Promise<void> {
    const { store } = this.deps;
    return store.addUsage ? store.addUsage(tenant, usage) : replayUsage(store, tenant, usage);
  }
}
