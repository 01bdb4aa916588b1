/**
 * idle() waits past the queue: a job counts as succeeded at its commit, and the worker archives
 * the window's turns after it, so idle() also waits for the local worker's jobs to settle.
 */
import { expect, it } from 'vitest';
import { waitUntilIdle } from '../../src/formation/wait-until-idle.js';
import type { WorkQueue } from '../../src/formation/work-queue.js';

type Status = Awaited<ReturnType<WorkQueue['status']>>;

function queueWith(waiting: number[]): Pick<WorkQueue, 'status'> {
  return {
    status: () => {
      const queued = waiting.length > 1 ? (waiting.shift() as number) : (waiting[0] as number);
      return Promise.resolve({ counts: { queued, running: 0, retrying: 0, succeeded: 0, dead: 0 } } as Status);
    },
  };
}

it('resolves only after the local jobs settled, once nothing is queued', async () => {
  const order: string[] = [];
  const settled = async (): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    order.push('settled');
  };
  await waitUntilIdle({ queue: queueWith([1, 0]), tenants: ['t'], poke: () => order.push('poke'), settled, pollMs: 5 });
  order.push('idle');
  expect(order).toEqual(['poke', 'settled', 'idle']);
});

it('still times out with TIMEOUT while windows wait, without waiting for the jobs', async () => {
  let asked = false;
  const settled = (): Promise<void> => ((asked = true), Promise.resolve());
  const waiting = waitUntilIdle({
    queue: queueWith([2]),
    tenants: ['t'],
    poke: () => undefined,
    settled,
    pollMs: 5,
    timeoutMs: 30,
  });
  await expect(waiting).rejects.toMatchObject({ code: 'TIMEOUT' });
  expect(asked).toBe(false);
});
