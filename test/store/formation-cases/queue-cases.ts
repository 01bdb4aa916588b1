import { expect } from 'vitest';
import type { JobError } from '../../../src/model/formation/work-queue.js';
import { expectCode } from '../../support/expect-code.js';
import { formationOf, type CaseContext } from './case-context.js';
import { windowJob } from './episode-cases.js';

const T0 = Date.parse('2026-04-01T00:00:00.000Z');
/** An instant `s` seconds after a fixed start. */
export const sec = (s: number): string => new Date(T0 + s * 1000).toISOString();

function failure(code = 'LLM_ERROR', retryable = true, s = 0): JobError {
  return { code, message: `${code} happened`, retryable, at: sec(s) };
}

/** The work queue: insert-or-return, leases taken over when they run out, retries and the dead letter. */
export function queueCases({ test, store: current, tenant }: CaseContext): void {
  test('queue: enqueue is insert-or-return by (tenant, idempotency key)', async () => {
    const { queue } = formationOf(current());
    const A = tenant('a');
    const B = tenant('b');
    const [first] = await queue.enqueue(A, [windowJob({ tenant: A }, 'k1', ['e1'])], sec(0));
    expect(first).toMatchObject({ created: true, job: { tenant: A, state: 'queued', attempts: 0, maxAttempts: 6 } });
    expect(first?.job.nextRunAt).toBe(sec(0));
    const again = await queue.enqueue(
      A,
      [windowJob({ tenant: A }, 'k1', ['e1']), windowJob({ tenant: A }, 'k2', [])],
      sec(5),
    );
    expect(again.map((r) => r.created)).toEqual([false, true]);
    expect(again[0]?.job.id).toBe(first?.job.id);
    const [other] = await queue.enqueue(B, [{ ...windowJob({ tenant: B }, 'k1', []), maxAttempts: 2 }], sec(0));
    expect(other).toMatchObject({ created: true, job: { tenant: B, maxAttempts: 2 } });
    await expectCode(queue.enqueue(A, [windowJob({ tenant: B }, 'k3', [])], sec(0)), 'INVALID_INPUT');
    await expectCode(queue.enqueue(A, [windowJob({ tenant: A }, 'k3', [])], 'later'), 'INVALID_INPUT');
    expect((await queue.status(A)).counts.queued).toBe(2);
  });

  test('queue: claim leases due jobs earliest first, once, and adds an attempt', async () => {
    const { queue } = formationOf(current());
    const T = tenant();
    await queue.enqueue(T, [windowJob({ tenant: T }, 'late', [])], sec(10));
    await queue.enqueue(T, [windowJob({ tenant: T }, 'early', [])], sec(1));
    await queue.enqueue(T, [windowJob({ tenant: T }, 'future', [])], sec(100));
    const claimed = await queue.claim({ owner: 'w1', limit: 5, now: sec(20), leaseMs: 30_000, tenant: T });
    expect(claimed.map((j) => j.idempotencyKey)).toEqual(['early', 'late']);
    expect(claimed[0]).toMatchObject({ state: 'running', attempts: 1, lease: { owner: 'w1', until: sec(50) } });
    expect(await queue.claim({ owner: 'w2', limit: 5, now: sec(21), leaseMs: 30_000, tenant: T })).toEqual([]);
    const listed = await queue.list(T, { states: ['running'] });
    expect(listed.items.map((j) => [j.idempotencyKey, j.lease?.owner, j.attempts])).toEqual([
      ['early', 'w1', 1],
      ['late', 'w1', 1],
    ]);
  });

  test('queue: an expired lease is taken over, and the old owner can neither renew nor fail it', async () => {
    const { queue } = formationOf(current());
    const T = tenant();
    await queue.enqueue(T, [windowJob({ tenant: T }, 'k', [])], sec(0));
    const [job] = await queue.claim({ owner: 'dead-worker', limit: 1, now: sec(1), leaseMs: 10_000, tenant: T });
    expect(await queue.renew(T, job!.id, 'dead-worker', sec(15))).toBe(true);
    expect(await queue.claim({ owner: 'w2', limit: 1, now: sec(14), leaseMs: 10_000, tenant: T })).toEqual([]);
    const [taken] = await queue.claim({ owner: 'w2', limit: 1, now: sec(15), leaseMs: 10_000, tenant: T });
    expect(taken).toMatchObject({ id: job!.id, attempts: 2, lease: { owner: 'w2', until: sec(25) } });
    expect(await queue.renew(T, job!.id, 'dead-worker', sec(40))).toBe(false);
    expect(await queue.fail(T, job!.id, 'dead-worker', failure(), { state: 'dead', reason: 'x' })).toBe(false);
    expect(await queue.renew(T, job!.id, 'w2', sec(40))).toBe(true);
    expect(await queue.renew('other-tenant', job!.id, 'w2', sec(40))).toBe(false);
  });

  test('queue: fail records the retry decision; dead jobs stay visible and requeue revives them', async () => {
    const { queue } = formationOf(current());
    const T = tenant();
    await queue.enqueue(T, [windowJob({ tenant: T }, 'k', [])], sec(0));
    const [job] = await queue.claim({ owner: 'w', limit: 1, now: sec(1), leaseMs: 60_000, tenant: T });
    const retry = { state: 'retrying' as const, nextRunAt: sec(30), delayMs: 29_000 };
    expect(await queue.fail(T, job!.id, 'w', failure('LLM_ERROR', true, 2), retry)).toBe(true);
    let [stored] = (await queue.list(T)).items;
    expect(stored).toMatchObject({ state: 'retrying', nextRunAt: sec(30), lease: null, finishedAt: null });
    expect(stored?.lastError).toEqual(failure('LLM_ERROR', true, 2));
    expect(await queue.claim({ owner: 'w', limit: 1, now: sec(29), leaseMs: 60_000, tenant: T })).toEqual([]);
    const [second] = await queue.claim({ owner: 'w', limit: 1, now: sec(30), leaseMs: 60_000, tenant: T });
    expect(second?.attempts).toBe(2);
    expect(await queue.fail(T, job!.id, 'w', failure('UNAUTHORIZED', false, 31), { state: 'dead', reason: 'no' })).toBe(
      true,
    );
    [stored] = (await queue.list(T, { states: ['dead'] })).items;
    expect(stored).toMatchObject({ state: 'dead', finishedAt: sec(31), lastError: { code: 'UNAUTHORIZED' } });
    expect(await queue.claim({ owner: 'w', limit: 1, now: sec(1000), leaseMs: 1, tenant: T })).toEqual([]);
    const revived = await queue.requeue(T, job!.id, sec(40));
    expect(revived).toMatchObject({ state: 'queued', attempts: 0, nextRunAt: sec(40), finishedAt: null });
    await expectCode(queue.requeue(T, job!.id, sec(41)), 'NOT_FOUND');
    await expectCode(queue.requeue('other', job!.id, sec(41)), 'NOT_FOUND');
  });

  test('queue: a job whose worker died on its last attempt is dead-lettered, not run again', async () => {
    const { queue } = formationOf(current());
    const T = tenant();
    await queue.enqueue(T, [{ ...windowJob({ tenant: T }, 'poison', []), maxAttempts: 2 }], sec(0));
    await queue.claim({ owner: 'a', limit: 1, now: sec(1), leaseMs: 1000, tenant: T });
    await queue.claim({ owner: 'b', limit: 1, now: sec(3), leaseMs: 1000, tenant: T });
    expect(await queue.claim({ owner: 'c', limit: 1, now: sec(5), leaseMs: 1000, tenant: T })).toEqual([]);
    const [dead] = (await queue.list(T)).items;
    expect(dead).toMatchObject({ state: 'dead', attempts: 2, lastError: { code: 'LEASE_EXPIRED', retryable: false } });
  });

  test('queue: status counts every state; list pages and filters by state', async () => {
    const { queue } = formationOf(current());
    const T = tenant();
    const keys = ['a', 'b', 'c', 'd', 'e'];
    for (const [i, key] of keys.entries()) await queue.enqueue(T, [windowJob({ tenant: T }, key, [])], sec(i));
    await queue.claim({ owner: 'w', limit: 2, now: sec(10), leaseMs: 60_000, tenant: T });
    const status = await queue.status(T);
    expect(status).toEqual({
      counts: { queued: 3, running: 2, retrying: 0, succeeded: 0, dead: 0 },
      oldestWaitingSince: sec(2),
    });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await queue.list(T, { limit: 2, cursor });
      seen.push(...page.items.map((j) => j.idempotencyKey));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(keys);
    expect((await queue.list(T, { states: ['queued'] })).items.map((j) => j.idempotencyKey)).toEqual(['c', 'd', 'e']);
    expect((await queue.status(tenant('empty'))).counts.queued).toBe(0);
    await expectCode(queue.list(T, { cursor: 'bogus' }), 'INVALID_INPUT');
    await expectCode(queue.list(T, { states: ['lost' as never] }), 'INVALID_INPUT');
  });

  test('queue: the worker’s claim without a tenant takes due jobs of every tenant', async () => {
    const { queue } = formationOf(current());
    const A = tenant('a');
    const B = tenant('b');
    // Far in the past, so that jobs other tests left behind are not due before these.
    const past = (s: number): string => new Date(Date.parse('2001-01-01T00:00:00.000Z') + s * 1000).toISOString();
    await queue.enqueue(A, [windowJob({ tenant: A }, 'a1', [])], past(1));
    await queue.enqueue(B, [windowJob({ tenant: B }, 'b1', [])], past(0));
    const claimed = await queue.claim({ owner: 'fan-out', limit: 2, now: past(5), leaseMs: 60_000 });
    expect(claimed.map((j) => j.tenant)).toEqual([B, A]);
    await expectCode(queue.claim({ owner: '', limit: 1, now: past(5), leaseMs: 1 }), 'INVALID_INPUT');
    await expectCode(queue.claim({ owner: 'w', limit: 0, now: past(5), leaseMs: 1 }), 'INVALID_LIMIT');
  });
}
