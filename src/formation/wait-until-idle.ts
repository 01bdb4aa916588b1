import { EngramError } from '../model/errors.js';
import type { WorkQueue } from './work-queue.js';

/** What {@link waitUntilIdle} watches. */
export interface IdleWatch {
  queue: Pick<WorkQueue, 'status'>;
  tenants: string[];
  /** Asks the local worker to look for work now (between checks). */
  poke: () => void;
  /** Waits for the local worker's jobs to settle (steps after their commit) once the queue is idle. */
  settled?: (() => Promise<void>) | undefined;
  /** @default no limit */
  timeoutMs?: number | undefined;
  /** Time between checks. */
  pollMs: number;
}

/**
 * Resolves when no job of `tenants` is queued, running or retrying and the local worker's jobs
 * have settled (a job counts as succeeded at its commit, before it archives its turns); rejects with TIMEOUT (and
 * the counts still waiting) after `timeoutMs`. Its timer is a normal one: a script awaiting it
 * stays alive until formation is done.
 */
export async function waitUntilIdle(watch: IdleWatch): Promise<void> {
  const deadline = watch.timeoutMs === undefined ? Infinity : Date.now() + watch.timeoutMs;
  for (;;) {
    const statuses = await Promise.all(watch.tenants.map((t) => watch.queue.status(t)));
    const waiting = statuses.reduce((n, s) => n + s.counts.queued + s.counts.running + s.counts.retrying, 0);
    if (waiting === 0) {
      await watch.settled?.();
      return;
    }
    if (Date.now() >= deadline) {
      throw new EngramError('TIMEOUT', `formation still has ${waiting} windows waiting`, {
        isRetryable: true,
        details: { waiting, tenants: watch.tenants },
      });
    }
    watch.poke();
    await new Promise((resolve) => setTimeout(resolve, Math.min(watch.pollMs, Math.max(0, deadline - Date.now()))));
  }
}
