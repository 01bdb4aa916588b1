import { EngramError } from '../model/errors.js';

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Retries after the first attempt. @default 3 */
  retries?: number | undefined;
  /** First backoff delay in ms; doubles each retry. @default 50 */
  baseMs?: number | undefined;
  /** Largest backoff delay in ms. @default 2000 */
  maxMs?: number | undefined;
  /** Which errors are worth another attempt. @default error.isRetryable === true */
  isRetryable?: ((error: unknown) => boolean) | undefined;
  /** A server-given delay for this error (e.g. Retry-After), used instead of the backoff when set. */
  delayFor?: ((error: unknown) => number | undefined) | undefined;
  /** Called before each retry with the error and the 1-based retry number. */
  onRetry?: ((error: unknown, attempt: number, delayMs: number) => void) | undefined;
  /** Stops waiting and rethrows when aborted. */
  signal?: AbortSignal | undefined;
  /** Random source for jitter. @default Math.random */
  random?: (() => number) | undefined;
  /** Waits `ms`. @default setTimeout-based sleep honouring `signal` */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

function defaultIsRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { isRetryable?: unknown }).isRetryable === true;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `fn`, retrying retryable failures with exponential backoff and full jitter
 * (delay = random in [base·2^k / 2, base·2^k], capped at `maxMs`). The last error is rethrown as is.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const retries = options.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new EngramError('CONFIG_ERROR', `retries must be a non-negative integer, got ${String(retries)}`);
  }
  const baseMs = options.baseMs ?? 50;
  const maxMs = options.maxMs ?? 2_000;
  const isRetryable = options.isRetryable ?? defaultIsRetryable;
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? sleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= retries || !isRetryable(error) || options.signal?.aborted) throw error;
      const exp = Math.min(maxMs, baseMs * 2 ** attempt);
      const given = options.delayFor?.(error);
      const delay = given !== undefined ? Math.min(maxMs, Math.max(0, given)) : exp / 2 + random() * (exp / 2);
      options.onRetry?.(error, attempt + 1, delay);
      await wait(delay, options.signal);
    }
  }
}
