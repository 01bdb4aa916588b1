import type { FormationGuard } from '../safety/formation-guard.js';
import { randomBytes } from 'node:crypto';
import { EngramError } from '../model/errors.js';
import type { Scoped } from '../model/api.js';
import type {
  FormationJobsRequest,
  FormationStatus,
  HistoryRequest,
  RememberOptions,
  RememberResult,
} from '../model/formation/formation-api.js';
import type { Page } from '../model/memory-filter.js';
import { rejectUnknownFields } from '../model/request-fields.js';
import { validateLimit, validateScope } from '../model/validate.js';
import type { Scope } from '../model/scope.js';
import type { InputLimits } from '../model/validate.js';
import { CaptureWindows } from './capture-windows.js';
import type { FormationEventListener } from './formation-event.js';
import type { FormationConfig } from './formation-options.js';
import type { FormationStore, OperationVector } from './formation-store.js';
import { FormationWorker } from './formation-worker.js';
import type { HistoryEvent } from './history.js';
import type { NeighbourFinder } from './neighbours.js';
import { rememberResult, storeTurns, turnsToForm, type WindowJobOptions } from './remember.js';
import type { EmbedTexts, RunJobDeps } from './run-job.js';
import { validateTurns } from './validate-turns.js';
import { JOB_STATES, type FormationJob } from './work-queue.js';
import { waitUntilIdle } from './wait-until-idle.js';

/** What formation needs from the facade, injected. */
export interface FormationServiceDeps {
  store: FormationStore;
  /** The facade's checked embedding (same model as every other write). */
  embed: EmbedTexts;
  /** Neighbours from the facade's own recall (valid-now memories of the formed types, usage not recorded). */
  neighbours: NeighbourFinder;
  clock: () => Date;
  limits: Pick<InputLimits, 'maxTextLength' | 'maxLimit'>;
  /** Archives formed turns (see `formedTurns`). */
  archiveTurns?: RunJobDeps['archiveTurns'];
  /** Retries transient storage failures (busy database, serialization conflicts) of a write. @default none */
  withRetry?: (<T>(fn: () => Promise<T>) => Promise<T>) | undefined;
  onEvent?: FormationEventListener | undefined;
  /**
   * The write guard: turns are masked before they are stored, embedded or extracted from, the
   * candidates the extraction LLM proposes before they are consolidated, the operations the LLMs
   * propose before they are embedded and written, and the neighbour queries (candidates' texts)
   * before they are embedded. @default none
   */
  guard?: Pick<FormationGuard, 'turns' | 'candidates' | 'operations' | 'query'> | undefined;
}

/**
 * Memory formation as the facade runs it: `remember` stores turns as episodes and enqueues
 * their windows in one transaction; capture batches a wrapped call's turns into its session's
 * open window; the worker forms queued windows in the background; history, status and `idle()`
 * read what happened. Nothing here runs on a caller's LLM call.
 */
export class FormationService {
  private readonly worker: FormationWorker | null;
  private readonly capture: CaptureWindows | null;
  private readonly jobOptions: WindowJobOptions | null;
  /** Tenants this process wrote turns into (what `idle()` waits on). */
  private readonly tenants = new Set<string>();
  private closed = false;

  constructor(
    private readonly deps: FormationServiceDeps,
    readonly config: FormationConfig,
  ) {
    const { extractor } = config;
    this.jobOptions = extractor
      ? { extractor, timezoneOffsetMinutes: config.timezoneOffsetMinutes, maxAttempts: config.retry.maxAttempts }
      : null;
    this.worker =
      extractor && config.worker
        ? new FormationWorker(
            {
              store: deps.store,
              formation: {
                extractor,
                consolidator: config.consolidator,
                neighbours: deps.neighbours,
                neighbourLimit: config.neighbours,
              },
              embed: deps.embed,
              clock: deps.clock,
              archiveTurns: config.formedTurns === 'keep' ? undefined : deps.archiveTurns,
              archive: config.formedTurns === 'archive' ? 'formed' : 'superseded',
              owner: `${process.pid}-${randomBytes(4).toString('hex')}`,
              retry: config.retry,
              onEvent: deps.onEvent,
              guard: deps.guard,
            },
            config.worker,
          )
        : null;
    this.capture = this.jobOptions
      ? new CaptureWindows({
          queue: deps.store.queue,
          jobs: this.jobOptions,
          clock: deps.clock,
          quietMs: config.captureQuietMs,
          onEnqueued: () => this.worker?.poke(),
          onEvent: deps.onEvent,
        })
      : null;
    this.worker?.start();
  }

  private ensureOpen(): void {
    if (this.closed) throw new EngramError('STORE_CLOSED', 'this Engram instance is closed');
  }

  /** Refuses with a retryable STORE_BUSY when the tenant's backlog is full (backpressure). */
  private async checkBacklog(tenant: string): Promise<void> {
    if (!this.jobOptions) return;
    const { counts } = await this.deps.store.queue.status(tenant);
    const waiting = counts.queued + counts.retrying + counts.running;
    if (waiting >= this.config.maxBacklog) {
      throw new EngramError(
        'STORE_BUSY',
        `${waiting} formation windows are waiting in tenant ${tenant}; try again later`,
        {
          isRetryable: true,
          details: { reason: 'formation-backlog', waiting, limit: this.config.maxBacklog, retryAfterMs: 5_000 },
        },
      );
    }
  }

  /**
   * Validates a transcript, stores its turns as episodes (merging repeated texts) and enqueues
   * their formation, all durable before it resolves. Nothing of an invalid transcript is stored.
   */
  async remember(messages: unknown, options: RememberOptions): Promise<RememberResult> {
    this.ensureOpen();
    const scope = validateScope(options?.scope);
    rejectUnknownFields(options, ['scope', 'origin', 'caller'], 'remember');
    const origin = options.origin ?? 'remember';
    if (origin !== 'remember' && origin !== 'capture') {
      throw new EngramError('INVALID_INPUT', 'origin must be one of: remember, capture', {
        details: { field: 'origin' },
      });
    }
    const validated = validateTurns(messages, { limits: this.deps.limits, scope, now: this.deps.clock });
    // Turn text enters the pipeline here: validated, not yet stored, embedded or shown to an LLM.
    // The write guard masks turn text here: nothing below (episodes, vectors, extraction prompts) sees a masked value.
    const turns = this.deps.guard ? await this.deps.guard.turns(validated, scope.tenant) : validated;
    await this.checkBacklog(scope.tenant);
    const vectors = await this.vectorsOf(
      turns.map((t) => t.text),
      scope,
    );
    const retry = this.deps.withRetry ?? ((fn) => fn());
    const { plans, jobs } = await retry(() =>
      storeTurns(this.deps.store.episodes, turns, {
        scope,
        origin,
        at: this.deps.clock().toISOString(),
        jobs: origin === 'capture' ? null : this.jobOptions,
        vectors,
        caller: options.caller,
      }),
    );
    this.tenants.add(scope.tenant);
    const toCapture = origin === 'capture' && this.capture ? turnsToForm(plans, turns) : [];
    if (toCapture.length > 0) this.capture?.add(scope, toCapture);
    if (jobs > 0) this.worker?.poke();
    return rememberResult(plans, jobs, jobs > 0 || toCapture.length > 0);
  }

  private async vectorsOf(texts: string[], scope: Scope): Promise<OperationVector[]> {
    const unique = [...new Set(texts)];
    const { vectors, embedding } = await this.deps.embed(unique, scope);
    const byText = new Map(unique.map((t, i) => [t, vectors[i] as Float32Array]));
    return texts.map((t) => ({ vector: byText.get(t) as Float32Array, embedding }));
  }

  private page(options: { limit?: unknown; cursor?: unknown }): { limit: number; cursor: string | undefined } {
    const limit = options.limit === undefined ? 50 : validateLimit(options.limit, this.deps.limits.maxLimit);
    if (options.cursor !== undefined && typeof options.cursor !== 'string') {
      throw new EngramError('INVALID_INPUT', 'cursor must be a string', { details: { field: 'cursor' } });
    }
    return { limit, cursor: options.cursor };
  }

  /** A memory's changes, oldest first (events outlive a hard delete); empty for an unknown id. */
  async history(id: string, options: HistoryRequest): Promise<Page<HistoryEvent>> {
    this.ensureOpen();
    const scope = validateScope(options?.scope);
    rejectUnknownFields(options, ['scope', 'limit', 'cursor'], 'history');
    if (typeof id !== 'string' || id === '' || id.length > 256) {
      throw new EngramError('INVALID_INPUT', 'id must be a string of 1 to 256 characters', {
        details: { field: 'id' },
      });
    }
    return this.deps.store.history.list(scope.tenant, id, this.page(options));
  }

  async status(options: Scoped): Promise<FormationStatus> {
    this.ensureOpen();
    const { tenant } = validateScope(options?.scope);
    const [queue, dead] = await Promise.all([
      this.deps.store.queue.status(tenant),
      this.deps.store.queue.list(tenant, { states: ['dead'], limit: 20 }),
    ]);
    const { extractor, consolidator, llm } = this.config;
    return {
      enabled: extractor !== null,
      extractor: extractor ? { name: extractor.name, version: extractor.version, method: extractor.method } : null,
      consolidator: { name: consolidator.name, version: consolidator.version },
      llm: llm?.id ?? null,
      worker: this.worker?.state ?? null,
      queue,
      openCaptureTurns: this.capture?.pendingTurns ?? 0,
      dead: dead.items,
    };
  }

  async jobs(options: FormationJobsRequest): Promise<Page<FormationJob>> {
    this.ensureOpen();
    const { tenant } = validateScope(options?.scope);
    rejectUnknownFields(options, ['scope', 'states', 'limit', 'cursor'], 'jobs');
    const states = options.states;
    if (
      states !== undefined &&
      (!Array.isArray(states) || states.some((s) => !(JOB_STATES as readonly unknown[]).includes(s)))
    ) {
      throw new EngramError('INVALID_INPUT', `states must be a list of: ${JOB_STATES.join(', ')}`, {
        details: { field: 'states' },
      });
    }
    return this.deps.store.queue.list(tenant, { states, ...this.page(options) });
  }

  /** Moves a dead job back to the queue (NOT_FOUND when it is not a dead job of the tenant). */
  async requeue(jobId: string, options: Scoped): Promise<FormationJob> {
    this.ensureOpen();
    const { tenant } = validateScope(options?.scope);
    const job = await this.deps.store.queue.requeue(tenant, String(jobId), this.deps.clock().toISOString());
    this.tenants.add(tenant);
    this.worker?.poke();
    return job;
  }

  /**
   * Resolves once nothing is waiting to be formed in the tenants this process wrote into (or in
   * `scope`'s tenant): open capture windows are enqueued first, then the queue is watched until no
   * job is queued, running or retrying (a dead job does not wait). Rejects with TIMEOUT past `timeoutMs`.
   */
  async idle(options: { scope?: Scope | undefined; timeoutMs?: number | undefined } = {}): Promise<void> {
    this.ensureOpen();
    const only = options.scope === undefined ? null : validateScope(options.scope).tenant;
    await this.capture?.flushAll();
    const tenants = only ? [only] : [...new Set([...this.tenants, ...(this.worker?.state.tenants ?? [])])];
    await waitUntilIdle({
      queue: this.deps.store.queue,
      tenants,
      poke: () => this.worker?.poke(),
      settled: () => this.worker?.settled() ?? Promise.resolve(),
      timeoutMs: options.timeoutMs,
      pollMs: 25,
    });
  }

  /** Enqueues open capture windows, then stops the worker (running jobs get its grace period). */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.capture?.flushAll();
    this.closed = true;
    await this.worker?.stop();
  }
}
