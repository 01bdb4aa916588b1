import type { MemoryStore } from '../store/memory-store.js';

/** What {@link UsageRecorder} writes with. */
export interface UsageRecorderDeps {
  store: MemoryStore;
  clock: () => Date;
  withRetry: <T>(fn: () => Promise<T>) => Promise<T>;
  /** A recording that failed (after its retries): reported, never thrown. */
  onError: (error: unknown) => void;
}

/**
 * Records the use of recalled memories in the background, after the recall has answered: a
 * failure is reported, not thrown, and {@link UsageRecorder.settled} waits for what is in flight.
 */
export class UsageRecorder {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly deps: UsageRecorderDeps) {}

  /** Records, on a later turn of the event loop, that these memories were recalled now. */
  record(tenant: string, ids: string[]): void {
    const at = this.deps.clock().toISOString();
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.deps.withRetry(() => this.deps.store.recordUsage(tenant, ids, at)))
      .catch((error: unknown) => this.deps.onError(error))
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Resolves once every recording started so far has ended, whatever its outcome. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
