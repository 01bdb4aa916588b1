import { EngramError } from '../model/errors.js';
import type { WorkerState } from '../model/formation/formation-api.js';
import type { FormationEventListener } from './formation-event.js';
import { nextAttempt, type RetryPolicy } from './retry-policy.js';
import { episodeScopeKey } from './episode-merge.js';
import { jobErrorOf, runJob, type InScopeOrder, type RunJobDeps } from './run-job.js';
import { factScope } from './window-of-job.js';
import type { FormationJob } from './work-queue.js';

/** How a worker takes jobs. */
export interface WorkerSettings {
  /** Jobs formed at once by this worker (each makes at most two LLM calls). @default 2 */
  concurrency: number;
  /** How long a claimed job is reserved; renewed every third of it while it runs. A dead worker's jobs are taken over after it. @default 30000 */
  leaseMs: number;
  /** How often an idle worker looks for runnable jobs (work enqueued by this process wakes it at once). @default 1000 */
  pollMs: number;
  /** How long `stop()` lets running jobs finish before interrupting them. @default 10000 */
  graceMs: number;
}

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = Object.freeze({
  concurrency: 2,
  leaseMs: 30_000,
  pollMs: 1_000,
  graceMs: 10_000,
});

/** What a worker needs, injected. */
export interface WorkerDeps extends RunJobDeps {
  /** This worker's lease owner id (process id and a random part). */
  owner: string;
  retry: RetryPolicy;
  onEvent?: FormationEventListener | undefined;
  /** Jitter of retry delays. @default Math.random */
  random?: (() => number) | undefined;
}

/**
 * The background worker: claims runnable jobs from the durable queue (never more than
 * `concurrency` at once), renews their leases while they run, forms each with {@link runJob},
 * and records a failure with the retry policy's decision (a retry after backoff, or the dead
 * letter). It never runs on a caller's path: `remember` and capture only enqueue and `poke` it.
 */
export class FormationWorker {
  private readonly settings: WorkerSettings;
  private readonly inFlight = new Map<
    string,
    { job: FormationJob; controller: AbortController; done: Promise<void> }
  >();
  private readonly seenTenants = new Set<string>();
  /** The last job of each fact scope: the next one of that scope starts after it. */
  private readonly chains = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | null = null;
  private again = false;
  private running = false;
  /** The abort reason of jobs interrupted by {@link stop}. */
  private readonly interrupted = new EngramError('INTERNAL', 'the worker stopped before the job finished', {
    isRetryable: true,
  });

  constructor(
    private readonly deps: WorkerDeps,
    settings: Partial<WorkerSettings> = {},
  ) {
    this.settings = { ...DEFAULT_WORKER_SETTINGS, ...settings };
  }

  get state(): WorkerState {
    return {
      owner: this.deps.owner,
      running: this.running,
      concurrency: this.settings.concurrency,
      inFlight: this.inFlight.size,
      tenants: [...this.seenTenants],
    };
  }

  /**
   * Resolves when the jobs running now have settled, their steps after the commit (archiving
   * formed turns) included: the queue counts a job succeeded before those steps end.
   */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()].map((r) => r.done));
  }

  /** Starts polling (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.poke();
  }

  /** Looks for runnable jobs now instead of at the next poll. */
  poke(): void {
    if (!this.running) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.claiming = this.claimRound().finally(() => {
      this.claiming = null;
      if (!this.running) return;
      if (this.again) {
        this.again = false;
        this.poke();
      } else this.schedule();
    });
  }

  private schedule(): void {
    clearTimeout(this.timer);
    // Unref'd: a waiting worker alone never keeps the process alive (idle() waits with its own timer).
    this.timer = setTimeout(() => this.poke(), this.settings.pollMs);
    this.timer.unref();
  }

  private async claimRound(): Promise<void> {
    const free = this.settings.concurrency - this.inFlight.size;
    if (free <= 0) return;
    let jobs: FormationJob[];
    try {
      jobs = await this.deps.store.queue.claim({
        owner: this.deps.owner,
        limit: free,
        now: this.deps.clock().toISOString(),
        leaseMs: this.settings.leaseMs,
      });
    } catch (error) {
      this.deps.onEvent?.({ type: 'worker-error', detail: 'claiming jobs failed', error });
      return;
    }
    for (const job of await this.inSaidOrder(jobs)) this.launch(job);
    // A full claim may have left more behind: look again as soon as a slot frees up (launch pokes).
  }

  /**
   * The claimed jobs, those of one tenant in the order their first turns were said (the queue
   * orders by due time, and the windows of one `remember` are due at once): a conversation's
   * facts are then formed in its own order, so a move supersedes the address said before it.
   */
  private async inSaidOrder(jobs: FormationJob[]): Promise<FormationJob[]> {
    if (jobs.length < 2) return jobs;
    const when = new Map<string, string>();
    for (const tenant of new Set(jobs.map((j) => j.tenant))) {
      const firsts = jobs.filter((j) => j.tenant === tenant).flatMap((j) => j.episodeIds.slice(0, 1));
      try {
        for (const episode of await this.deps.store.episodes.getEpisodes(tenant, firsts))
          when.set(episode.id, episode.occurredAt);
      } catch {
        return jobs; // ordering is a refinement: without it the jobs still run
      }
    }
    const at = (job: FormationJob): string => when.get(job.episodeIds[0] ?? '') ?? job.createdAt;
    return [...jobs].sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
  }

  /**
   * Starts a claimed job. Its extraction runs at once; its consolidation and write wait for those
   * of the jobs of the same fact scope (tenant and scope without the session) claimed before it: a
   * window must be compared with the facts of the windows before it, or a move formed in parallel
   * with the old address would be added beside it instead of superseding it. The lease is renewed
   * from the claim on, waiting included.
   */
  private launch(job: FormationJob): void {
    if (this.inFlight.has(job.id)) return;
    this.seenTenants.add(job.tenant);
    const controller = new AbortController();
    const renew = this.renewLease(job, controller);
    const slot = `${job.tenant}\u0000${episodeScopeKey(factScope(job.scope))}`;
    // The job's turn in its scope: it starts after the previous one settles, however that ends.
    const before = this.chains.get(slot) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const turn = new Promise<void>((resolve) => (release = resolve));
    const chained = before.then(() => turn);
    this.chains.set(slot, chained);
    const inOrder = async <T>(step: () => Promise<T>): Promise<T> => {
      await before;
      return step();
    };
    const done = this.runOne(job, controller, inOrder).finally(() => {
      release();
      clearInterval(renew);
      this.inFlight.delete(job.id);
      if (this.chains.get(slot) === chained) this.chains.delete(slot);
      this.poke();
    });
    this.inFlight.set(job.id, { job, controller, done });
  }

  private renewLease(job: FormationJob, controller: AbortController): NodeJS.Timeout {
    const { leaseMs } = this.settings;
    const renew = setInterval(
      () => {
        const until = new Date(this.deps.clock().getTime() + leaseMs).toISOString();
        this.deps.store.queue.renew(job.tenant, job.id, this.deps.owner, until).then(
          (held) => {
            if (!held)
              controller.abort(new EngramError('CONFLICT', `lease of job ${job.id} lost`, { isRetryable: true }));
          },
          () => undefined, // a failed renewal is retried at the next tick; the lease check at completion decides
        );
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    return renew;
  }

  private async runOne(job: FormationJob, controller: AbortController, inOrder: InScopeOrder): Promise<void> {
    try {
      const run = await runJob(this.deps, job, this.deps.owner, controller.signal, inOrder);
      this.deps.onEvent?.({
        type: 'job-succeeded',
        tenant: job.tenant,
        jobId: job.id,
        candidates: run.outcome?.candidates.length ?? 0,
        operations: run.operations,
        notes: run.outcome?.consolidation.notes.length ?? 0,
      });
      if (run.archiveError !== undefined)
        this.deps.onEvent?.({
          type: 'worker-error',
          detail: `archiving the formed turns of job ${job.id} failed; the job succeeded and its turns stay recallable`,
          error: run.archiveError,
        });
    } catch (error) {
      await this.recordFailure(job, controller.signal.aborted ? (controller.signal.reason ?? error) : error);
    }
  }

  private async recordFailure(job: FormationJob, error: unknown): Promise<void> {
    const now = this.deps.clock();
    const decision =
      error === this.interrupted
        ? { state: 'retrying' as const, nextRunAt: now.toISOString(), delayMs: 0 }
        : nextAttempt(job.attempts, error, now, this.deps.retry, this.deps.random);
    const jobError = jobErrorOf(error, now.toISOString());
    let held: boolean;
    try {
      held = await this.deps.store.queue.fail(job.tenant, job.id, this.deps.owner, jobError, decision);
    } catch (failure) {
      this.deps.onEvent?.({
        type: 'worker-error',
        detail: `recording the failure of job ${job.id} failed`,
        error: failure,
      });
      return;
    }
    const base = { tenant: job.tenant, jobId: job.id };
    if (!held) this.deps.onEvent?.({ type: 'lease-lost', ...base });
    else if (decision.state === 'dead')
      this.deps.onEvent?.({
        type: 'job-dead',
        ...base,
        attempts: job.attempts,
        error: jobError,
        reason: decision.reason,
      });
    else
      this.deps.onEvent?.({
        type: 'job-retrying',
        ...base,
        attempts: job.attempts,
        error: jobError,
        nextRunAt: decision.nextRunAt,
      });
  }

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then interrupts the rest (they
   * are recorded as retrying at once, so the next worker takes them without waiting for the lease).
   */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.claiming;
    const running = [...this.inFlight.values()];
    if (running.length === 0) return;
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      graceTimer = setTimeout(resolve, this.settings.graceMs);
    });
    await Promise.race([Promise.allSettled(running.map((r) => r.done)), grace]);
    clearTimeout(graceTimer);
    for (const r of this.inFlight.values()) r.controller.abort(this.interrupted);
    await Promise.allSettled([...this.inFlight.values()].map((r) => r.done));
  }
}
