import { isEngramError } from '../model/errors.js';
import { DEFAULT_MAX_ATTEMPTS, type RetryDecision } from '../model/formation/work-queue.js';

/** Backoff of formation jobs. */
export interface RetryPolicy {
  /** Attempts before a job is dead-lettered. @default 6 */
  maxAttempts: number;
  /** Delay before the 2nd attempt; doubles per attempt. @default 2000 */
  baseMs: number;
  /** Longest delay; also caps a provider's `Retry-After`. @default 600000 */
  maxMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  baseMs: 2_000,
  maxMs: 600_000,
});

export type { RetryDecision } from '../model/formation/work-queue.js';

/**
 * The next step of a failed job: dead when the error is not retryable (bad input, refused
 * credentials, a bug) or the attempts are used up; else retried after exponential backoff with
 * jitter (`[d/2, d]`, d = base·2^(attempts-1), capped), never sooner than the provider's
 * `Retry-After` (`details.retryAfterMs`). `attempts` counts the attempt that just failed.
 */
export function nextAttempt(
  attempts: number,
  error: unknown,
  now: Date,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): RetryDecision {
  const retryable = isEngramError(error) ? error.isRetryable : false;
  if (!retryable)
    return { state: 'dead', reason: isEngramError(error) ? `${error.code} is not retryable` : 'unexpected error' };
  if (attempts >= policy.maxAttempts) return { state: 'dead', reason: `gave up after ${attempts} attempts` };
  const full = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  const backoff = full / 2 + random() * (full / 2);
  const asked =
    isEngramError(error) && typeof error.details.retryAfterMs === 'number'
      ? Math.min(policy.maxMs, error.details.retryAfterMs)
      : 0;
  const delayMs = Math.round(Math.max(backoff, asked));
  return { state: 'retrying', nextRunAt: new Date(now.getTime() + delayMs).toISOString(), delayMs };
}
