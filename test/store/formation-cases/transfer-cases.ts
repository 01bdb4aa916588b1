import { expect } from 'vitest';
import type { Memory } from '../../../src/model/memory.js';
import { exportDeletedHistory, exportTenant, importRecords, type TransferLine } from '../../../src/store/transfer.js';
import { at, makeRecord, randomVector, seededRandom, withVector } from '../fixtures/records.js';
import { expectCode } from '../../support/expect-code.js';
import { formationOf, type CaseContext } from './case-context.js';

async function collect<T>(lines: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

const inTenant = (memories: Memory[], tenant: string) => memories.map((m) => ({ ...m, scope: { ...m.scope, tenant } }));

/** Export and restore carry world-time validity and history, the history of deleted memories included. */
export function transferCases({ test, store: current, tenant }: CaseContext): void {
  test('export and restore carry validity and history, deleted memories’ history included', async () => {
    const store = current();
    const { history } = formationOf(store);
    const A = tenant('from');
    const B = tenant('into');
    const kept = withVector(randomVector(seededRandom(21), 4), 'test-model', {
      scope: { tenant: A },
      validFrom: '2024-01-01T00:00:00.000Z',
      validTo: '2025-01-01T00:00:00.000Z',
      supersededBy: 'later',
    });
    const gone = makeRecord({ scope: { tenant: A } });
    await store.insert([kept, gone], {
      cause: { type: 'api', operation: 'add' },
      caller: { kind: 'api-key', id: 'k' },
    });
    await store.update(A, kept.id, { text: 'refined', updatedAt: at(900) });
    await store.delete(A, [gone.id]);
    const lines: TransferLine[] = [
      ...(await collect(exportTenant(store, A))),
      ...(await collect(exportDeletedHistory(store, A))),
    ];
    expect(lines.map((l) => l.format)).toEqual(['engram.memory/v1', 'engram.history/v1', 'engram.history/v1']);
    // Through JSON text, as `engram export | engram restore` would.
    const report = await importRecords(
      store,
      lines.map((l) => JSON.parse(JSON.stringify(l)) as TransferLine),
      { tenant: B },
    );
    expect(report.imported).toBe(1);
    const original = await store.get(A, [kept.id]);
    expect(await store.get(B, [kept.id])).toEqual(inTenant(original, B));
    expect(original[0]).toMatchObject({ validTo: '2025-01-01T00:00:00.000Z', supersededBy: 'later', version: 2 });
    const events = async (t: string) =>
      (await history.forMemories(t, [kept.id, gone.id])).map((e) => ({ ...e, tenant: 'x' }));
    expect(await events(B)).toEqual(await events(A));
    expect((await history.orphans(B)).items.map((e) => e.kind)).toEqual(['created', 'deleted']);
  });

  test('restoring an export without history records each memory as restored by an import', async () => {
    const store = current();
    const { history } = formationOf(store);
    const A = tenant('old-export');
    const B = tenant('restored');
    const r = makeRecord({ scope: { tenant: A } });
    await store.insert([r]);
    const [line] = await collect(exportTenant(store, A));
    const { history: _dropped, validFrom: _v, validTo: _t, supersededBy: _s, version: _n, ...old } = line!;
    await importRecords(store, [old as TransferLine], { tenant: B });
    const [event] = (await history.list(B, r.id)).items;
    expect(event).toMatchObject({ kind: 'restored', before: null, cause: { type: 'import' } });
    expect((await store.get(B, [r.id]))[0]).toMatchObject({ validFrom: r.createdAt, version: 1 });
  });

  test('restore refuses a malformed history event whole, memories included', async () => {
    const store = current();
    const A = tenant('src');
    const B = tenant('dst');
    await store.insert([makeRecord({ scope: { tenant: A } })]);
    const [line] = await collect(exportTenant(store, A));
    const broken = { ...line!, history: [{ ...line!.history![0]!, kind: 'teleported' }] } as unknown as TransferLine;
    await expectCode(importRecords(store, [broken], { tenant: B }), 'INVALID_INPUT');
    const nul = { ...line!, history: [{ ...line!.history![0]!, id: 'a\u0000b' }] } as TransferLine;
    await expectCode(importRecords(store, [nul], { tenant: B }), 'INVALID_TEXT');
    expect(await store.count({ scope: { tenant: B } })).toBe(0);
    expect(await formationOf(store).history.forMemories(B, [line!.id])).toEqual([]);
  });
}
