import { describe, expect, it } from 'vitest';
import { EngramError } from '../src/model/errors.js';
import { retry } from '../src/util/retry.js';

const busy = () => new EngramError('STORE_BUSY', 'busy', { isRetryable: true });

describe('retry', () => {
  it('retries retryable errors with exponential backoff and jitter, then succeeds', async () => {
    const delays: number[] = [];
    let calls = 0;
    const value = await retry(
      async () => {
        calls += 1;
        if (calls < 4) throw busy();
        return 'ok';
      },
      { baseMs: 100, maxMs: 1000, random: () => 1, sleep: async (ms) => void delays.push(ms) },
    );
    expect(value).toBe('ok');
    expect(delays).toEqual([100, 200, 400]);
  });

  it('gives up after the retry budget and rethrows the last error', async () => {
    let calls = 0;
    const error = await retry(
      async () => {
        calls += 1;
        throw busy();
      },
      { retries: 2, sleep: async () => undefined },
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((error as EngramError).code).toBe('STORE_BUSY');
  });

  it('does not retry errors that are not retryable', async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls += 1;
          throw new EngramError('INVALID_INPUT', 'bad');
        },
        { sleep: async () => undefined },
      ),
    ).rejects.toThrow('bad');
    expect(calls).toBe(1);
  });

  it('uses a server-given delay, capped, and jitter stays within [half, full] of the backoff', async () => {
    const delays: number[] = [];
    let calls = 0;
    await retry(
      async () => {
        calls += 1;
        if (calls === 1) throw Object.assign(busy(), { retryAfterMs: 5000 });
        if (calls === 2) throw busy();
        return 1;
      },
      {
        baseMs: 100,
        maxMs: 1000,
        random: () => 0,
        delayFor: (e) => (e as { retryAfterMs?: number }).retryAfterMs,
        sleep: async (ms) => void delays.push(ms),
      },
    );
    expect(delays).toEqual([1000, 100]);
  });
});
