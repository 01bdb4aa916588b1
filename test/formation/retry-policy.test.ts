import { describe, expect, it } from 'vitest';
import { nextAttempt } from '../../src/formation/retry-policy.js';
import { isCurrent, isValidAt, validFromOf } from '../../src/formation/temporal.js';
import { EngramError } from '../../src/model/errors.js';
import { memory } from '../support/memory-fixture.js';

const now = new Date('2026-03-04T12:00:00.000Z');
const policy = { maxAttempts: 4, baseMs: 1000, maxMs: 10_000 };
const busy = new EngramError('LLM_ERROR', 'HTTP 503', { isRetryable: true });

describe('nextAttempt: the backoff of formation jobs', () => {
  it('backs off exponentially with jitter in [d/2, d], capped', () => {
    const at = (attempts: number, r: number) => nextAttempt(attempts, busy, now, policy, () => r);
    expect(at(1, 0)).toEqual({ state: 'retrying', delayMs: 500, nextRunAt: '2026-03-04T12:00:00.500Z' });
    expect(at(1, 1)).toMatchObject({ delayMs: 1000 });
    expect(at(3, 1)).toMatchObject({ delayMs: 4000 });
    expect(nextAttempt(3, busy, now, { ...policy, maxMs: 3000 }, () => 1)).toMatchObject({ delayMs: 3000 });
  });

  it('waits at least what the provider’s Retry-After asks', () => {
    const limited = new EngramError('LLM_ERROR', 'HTTP 429', { isRetryable: true, details: { retryAfterMs: 7000 } });
    expect(nextAttempt(1, limited, now, policy, () => 0)).toMatchObject({ state: 'retrying', delayMs: 7000 });
  });

  it('dead-letters what retrying cannot fix, and jobs out of attempts', () => {
    expect(nextAttempt(1, new EngramError('UNAUTHORIZED', 'bad key'), now, policy)).toEqual({
      state: 'dead',
      reason: 'UNAUTHORIZED is not retryable',
    });
    expect(nextAttempt(1, new TypeError('bug'), now, policy)).toEqual({ state: 'dead', reason: 'unexpected error' });
    expect(nextAttempt(4, busy, now, policy)).toEqual({ state: 'dead', reason: 'gave up after 4 attempts' });
  });
});

describe('world-time validity', () => {
  it('reads a memory from before formation by when it was stated, then stored', () => {
    expect(validFromOf(memory('a', 'x', { statedAt: '2024-01-01T00:00:00.000Z' }))).toBe('2024-01-01T00:00:00.000Z');
    expect(validFromOf(memory('a', 'x'))).toBe('2026-01-01T00:00:00.000Z');
  });

  it('holds from validFrom (inclusive) to validTo (exclusive), only while active', () => {
    const m = {
      ...memory('a', 'x'),
      validFrom: '2024-01-01T00:00:00.000Z',
      validTo: '2025-01-01T00:00:00.000Z',
      supersededBy: 'b',
    };
    expect(isValidAt(m, '2023-12-31T23:59:59.999Z')).toBe(false);
    expect(isValidAt(m, '2024-01-01T00:00:00.000Z')).toBe(true);
    expect(isValidAt(m, '2025-01-01T00:00:00.000Z')).toBe(false);
    expect(isCurrent(m)).toBe(false);
    expect(isValidAt({ ...m, validTo: null, supersededBy: null, status: 'archived' }, '2024-06-01T00:00:00.000Z')).toBe(
      false,
    );
    expect(isCurrent({ ...m, validTo: null, supersededBy: null })).toBe(true);
  });
});
