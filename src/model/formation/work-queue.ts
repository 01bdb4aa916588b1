import type { Scope } from '../scope.js';
import type { FormationPage } from './history.js';
import type { LlmUsage } from './llm-usage.js';

/** What happens to a job whose attempt failed (decided by formation's retry policy, `nextAttempt`). */
export type RetryDecision =
  { state: 'retrying'; nextRunAt: string; delayMs: number } | { state: 'dead'; reason: string };

/** Attempts a job gets when it is enqueued without `maxAttempts` (the default retry policy's). */
export const DEFAULT_MAX_ATTEMPTS = 6;

/**
 * Life of a formation job: `queued` → `running` (leased by one worker) → `succeeded`; a failed
 * attempt goes to `retrying` (runs again at `nextRunAt`) or, when not retryable or out of
 * attempts, to `dead` (the dead letter: kept, visible, re-queued only by hand).
 */
export const JOB_STATES = ['queued', 'running', 'retrying', 'succeeded', 'dead'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** The last failure of a job. */
export interface JobError {
  code: string;
  message: string;
  retryable: boolean;
  at: string;
}

/** The window a job forms, as it is enqueued. */
export interface JobWindow {
  scope: Scope;
  /** `windowKey(window, extractor)`: unique per tenant; enqueueing it again returns the existing job. */
  idempotencyKey: string;
  /** The extractor's name and version (an `ExtractorInfo` without its method). */
  extractor: { name: string; version: string };
  /** The window's turns, in order. */
  episodeIds: string[];
  session: string | null;
  timezoneOffsetMinutes: number;
}

/** What enqueueing a job needs. */
export interface NewFormationJob extends JobWindow {
  /** @default {@link DEFAULT_MAX_ATTEMPTS} (the default retry policy's) */
  maxAttempts?: number | undefined;
}

/** One window to form, as the queue keeps it. */
export interface FormationJob extends JobWindow {
  id: string;
  tenant: string;
  state: JobState;
  /** Attempts started (a claim adds one). */
  attempts: number;
  maxAttempts: number;
  /** When it may run next (ISO-8601 UTC). */
  nextRunAt: string;
  /** The worker holding it and until when; a lease past its time is free to claim (the worker died). */
  lease: { owner: string; until: string } | null;
  lastError: JobError | null;
  /** Filled on success. */
  result: {
    candidates: number;
    /** Operations written. */
    operations: number;
    /** Candidates and operations the write-safety policy refused (never consolidated or written); absent when none. */
    dropped?: number | undefined;
    extraction: LlmUsage;
    consolidation: LlmUsage;
  } | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

/** Counts per state (one tenant), for `status()` and backpressure. */
export interface QueueStatus {
  counts: Record<JobState, number>;
  /** `nextRunAt` of the oldest job waiting to run, or null. */
  oldestWaitingSince: string | null;
}

export interface ClaimOptions {
  /** Worker id (process id and a random part). */
  owner: string;
  /** Most jobs to take (the worker's free concurrency). */
  limit: number;
  now: string;
  /** How long the lease lasts before another worker may take the job over. */
  leaseMs: number;
  /** Restrict to one tenant. @default every tenant */
  tenant?: string | undefined;
}

/**
 * The durable work queue, kept in the same store (SQLite and PostgreSQL) so that episodes and
 * their jobs are written in one transaction. Completing a job is not here: it happens in
 * `FormationStore.completeWindow`, in the transaction that applies the job's operations.
 */
export interface WorkQueue {
  /**
   * Adds jobs; a job whose idempotency key already exists in the tenant (in any state, succeeded
   * included) is not added again and the existing one is returned with `created: false`.
   */
  enqueue(tenant: string, jobs: NewFormationJob[], at: string): Promise<Array<{ job: FormationJob; created: boolean }>>;
  /**
   * Leases up to `limit` runnable jobs (state `queued` or `retrying` with `nextRunAt` ≤ now, or
   * `running` with an expired lease), earliest `nextRunAt` first, adding 1 to `attempts`. Two
   * workers never get the same job (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: one writer).
   */
  claim(options: ClaimOptions): Promise<FormationJob[]>;
  /** Extends a lease the owner still holds; false when it lost it. */
  renew(tenant: string, jobId: string, owner: string, until: string): Promise<boolean>;
  /** Records a failed attempt with the retry decision (`retrying` at a time, or `dead`). False when `owner` no longer holds it. */
  fail(tenant: string, jobId: string, owner: string, error: JobError, decision: RetryDecision): Promise<boolean>;
  /** Moves a dead job back to `queued` with its attempts reset. NOT_FOUND when it is not a dead job of the tenant. */
  requeue(tenant: string, jobId: string, at: string): Promise<FormationJob>;
  status(tenant: string): Promise<QueueStatus>;
  list(
    tenant: string,
    options?: { states?: JobState[] | undefined; limit?: number | undefined; cursor?: string | undefined },
  ): Promise<FormationPage<FormationJob>>;
}
