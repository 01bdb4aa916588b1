// TEMPORARY: stand-in with the signature of the shared src/util/retry.ts until it lands.
export interface RetryOptions {
  retries?: number;
  baseMs?: number;
  maxMs?: number;
  isRetryable?: (error: unknown) => boolean;
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  signal?: AbortSignal;
}
export async function retry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const retries = options.retries ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt > retries || !(options.isRetryable?.(error) ?? true)) throw error;
      const delay = Math.random() * Math.min(options.maxMs ?? 1000, (options.baseMs ?? 20) * 2 ** (attempt - 1));
      options.onRetry?.(error, attempt, delay);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
