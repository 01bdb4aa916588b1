import { expect, it } from 'vitest';
import { runRecallChannels } from '../../src/recall/recall-channels.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

it('rejects with the dense failure and leaves no unhandled rejection when both channels fail', async () => {
  const store = createSqliteStore({ path: ':memory:' });
  await store.close();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const channels = runRecallChannels(
      store,
      {
        filter: { scope: { tenant: 't' } },
        queryVector: new Float32Array([1, 0, 0]),
        model: 'm',
        densePool: 10,
        lexicalTerms: ['walrus'],
        lexicalPool: 10,
      },
      () => 0,
    );
    await expect(channels).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    // Unhandled rejections are reported after the microtask queue drains.
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  expect(unhandled).toEqual([]);
});
