import { describe, expect, it } from 'vitest';
import { UsageRecorder } from '../../src/facade/usage-recorder.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { makeRecord } from '../store/fixtures/records.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

/** A real SQLite store with its usage writes counted (each call is one transaction). */
async function countedStore(withAddUsage: boolean) {
  const sqlite = createSqliteStore({ path: ':memory:' });
  const writes = { addUsage: 0, recordUsage: 0 };
  const store = Object.create(sqlite) as MemoryStore;
  store.recordUsage = (...args) => {
    writes.recordUsage++;
    return sqlite.recordUsage(...args);
  };
  store.addUsage = withAddUsage
    ? (...args) => {
        writes.addUsage++;
        return sqlite.addUsage(...args);
      }
    : undefined;
  const records = ['a', 'b', 'c'].map((id) => makeRecord({ id, scope: { tenant: 't' } }));
  await sqlite.insert([...records, makeRecord({ id: 'a', scope: { tenant: 'u' } })]);
  return { store, writes, close: () => sqlite.close() };
}

function recorder(store: MemoryStore, clock: () => Date, flushAfterMs = 1_000) {
  const errors: unknown[] = [];
  const usage = new UsageRecorder({ store, clock, withRetry: (fn) => fn(), onError: (e) => errors.push(e), flushAfterMs });
  return { usage, errors };
}

describe('UsageRecorder', () => {
  for (const withAddUsage of [true, false]) {
    it(`writes a window of recalls together, with every use counted (${withAddUsage ? 'addUsage' : 'replayed through recordUsage'})`, async () => {
      const { store, writes } = await countedStore(withAddUsage);
      let second = 0;
      const { usage, errors } = recorder(store, () => new Date(at(++second)));
      usage.record('t', ['a', 'b']);
      usage.record('t', ['a']);
      usage.record('u', ['a']);
      usage.record('t', ['a', 'c']);
      // Nothing is written before the window ends (1 s here) or settled() is called.
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(writes).toEqual({ addUsage: 0, recordUsage: 0 });
      await usage.settled();
      expect(errors).toEqual([]);
      const byId = Object.fromEntries((await store.get('t', ['a', 'b', 'c'])).map((m) => [m.id, m.usage]));
      expect(byId).toEqual({
        a: { count: 3, lastUsedAt: at(4) },
        b: { count: 1, lastUsedAt: at(1) },
        c: { count: 1, lastUsedAt: at(4) },
      });
      expect((await store.get('u', ['a']))[0]?.usage).toEqual({ count: 1, lastUsedAt: at(3) });
      // One write per tenant with addUsage; without it, one per (time, round) of the replay.
      expect(withAddUsage ? writes : writes.recordUsage).toEqual(withAddUsage ? { addUsage: 2, recordUsage: 0 } : 5);
    });
  }

  it('writes on its own once the window has passed, and reports a failed write instead of throwing', async () => {
    const { store, writes, close } = await countedStore(true);
    const { usage, errors } = recorder(store, () => new Date(at(9)), 20);
    usage.record('t', ['b']);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(writes.addUsage).toBe(1);
    expect((await store.get('t', ['b']))[0]?.usage).toEqual({ count: 1, lastUsedAt: at(9) });
    await close();
    usage.record('t', ['b']);
    await usage.settled();
    expect(errors).toMatchObject([{ code: 'STORE_CLOSED' }]);
  });
});
