/**
 * The facade's writes are recorded in the memory's history, in the transaction of the write,
 * as API calls by the caller the call names: add, update (content and status), re-embed and
 * delete, on SQLite and on PostgreSQL (PGlite), read back through the store's history log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import type { HistoryEvent } from '../../src/model/formation/history.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createPgliteStore } from '../../src/store/postgres/pglite-store.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { createHashEmbedder } from '../support/hash-embedder.js';

const BACKENDS: Array<[string, () => Promise<MemoryStore>]> = [
  ['SQLite', async () => createSqliteStore({ path: ':memory:' })],
  ['PGlite', () => createPgliteStore({ pgvector: false })],
];

describe.each(BACKENDS)('facade writes and their history (%s)', (_name, open) => {
  let engram: Engram | undefined;
  afterEach(async () => {
    await engram?.close();
    engram = undefined;
  });

  it('records add, update, archive, re-embed and delete with cause and caller', async () => {
    let tick = 0;
    const clock = () => new Date(Date.UTC(2026, 2, 1, 12, 0, tick++));
    const store = await open();
    engram = await Engram.open({ store, embedder: createHashEmbedder(), clock });
    const scope = { tenant: 'acme', user: 'ana' };
    const caller = { kind: 'api-key' as const, id: 'key-42' };
    const added = await engram.add({ text: 'Ana likes tea' }, { scope, caller });
    expect(added).toMatchObject({ version: 1, validFrom: added.createdAt, validTo: null, supersededBy: null });
    const updated = await engram.update(added.id, { text: 'Ana likes green tea' }, { scope, caller });
    expect(updated.version).toBe(2);
    await engram.update(added.id, { status: 'archived' }, { scope });
    await engram.reembed({ scope, embedder: createHashEmbedder({ model: 'hash-2' }), caller });
    expect(await engram.delete(added.id, { scope, caller })).toBe(true);
    const page = await store.formation!.history.list('acme', added.id);
    const events: HistoryEvent[] = page.items;
    expect(events.map((e) => [e.kind, e.cause, e.caller])).toEqual([
      ['created', { type: 'api', operation: 'add' }, caller],
      ['updated', { type: 'api', operation: 'update' }, caller],
      ['archived', { type: 'api', operation: 'update' }, { kind: 'system', id: null }],
      ['re-embedded', { type: 're-embed', model: 'hash-2' }, caller],
      ['deleted', { type: 'api', operation: 'delete' }, caller],
    ]);
    expect(events[1]).toMatchObject({ before: { text: 'Ana likes tea' }, after: { text: 'Ana likes green tea' } });
    expect(events[3]?.after?.embedding).toEqual({ model: 'hash-2', dim: 64 });
    expect(events[4]).toMatchObject({ after: null, before: { status: 'archived', version: 3 } });
    expect(new Set(events.map((e) => e.at)).size).toBe(events.length);
  });

  it('a batch that fails records nothing', async () => {
    const store = await open();
    engram = await Engram.open({ store, embedder: createHashEmbedder() });
    const scope = { tenant: 'acme' };
    await engram.add({ id: 'taken', text: 'first' }, { scope });
    await expect(
      engram.addMany(
        [
          { id: 'fresh', text: 'second' },
          { id: 'taken', text: 'again' },
        ],
        { scope },
      ),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await store.formation!.history.list('acme', 'fresh')).items).toEqual([]);
    expect((await store.formation!.history.list('acme', 'taken')).items.map((e) => e.kind)).toEqual(['created']);
  });
});
