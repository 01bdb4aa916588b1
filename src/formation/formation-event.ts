import type { JobError } from './work-queue.js';

/** What the formation worker and the capture windows report (never thrown: the work is in the background). */
export type FormationEvent =
  /** A window was formed and applied. */
  | { type: 'job-succeeded'; tenant: string; jobId: string; candidates: number; operations: number; notes: number }
  /** An attempt failed; the job runs again at `nextRunAt`. */
  | { type: 'job-retrying'; tenant: string; jobId: string; attempts: number; error: JobError; nextRunAt: string }
  /** An attempt failed for good: the job is dead-lettered (visible in the status, re-queued by hand). */
  | { type: 'job-dead'; tenant: string; jobId: string; attempts: number; error: JobError; reason: string }
  /** The worker lost a job's lease (it ran too long, or another worker took it over): its result was dropped. */
  | { type: 'lease-lost'; tenant: string; jobId: string }
  /** Something of the machinery failed (a claim, recording a failure, flushing a capture window). */
  | { type: 'worker-error'; detail: string; error: unknown };

export type FormationEventListener = (event: FormationEvent) => void;
