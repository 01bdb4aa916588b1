import { expect } from 'vitest';
import type { HistoryEvent } from '../../../src/model/formation/history.js';
import { expectCode } from '../../support/expect-code.js';
import { at, makeRecord, randomVector, seededRandom, withVector } from '../fixtures/records.js';
import { formationOf, type CaseContext } from './case-context.js';

/** Every event of a memory, through the pages. */
async function allEvents(
  history: ReturnType<typeof formationOf>['history'],
  tenant: string,
  id: string,
  limit = 2,
): Promise<HistoryEvent[]> {
  const out: HistoryEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await history.list(tenant, id, { limit, cursor });
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return out;
}

/** The history log: written in the transaction of every plain write, readable by page, kept after a delete. */
export function historyCases({ test, store: current, tenant }: CaseContext): void {
  test('history: insert, update, status moves, re-embed and delete each record one event, oldest first', async () => {
    const store = current();
    const { history } = formationOf(store);
    const T = tenant();
    const r = withVector(randomVector(seededRandom(5), 4), 'test-model', { scope: { tenant: T }, text: 'first' });
    const caller = { kind: 'api-key' as const, id: 'key-1' };
    await store.insert([r], { cause: { type: 'api', operation: 'add' }, caller });
    await store.update(T, r.id, { text: 'second', updatedAt: at(300) }, undefined, {
      cause: { type: 'api', operation: 'update' },
      caller,
    });
    await store.update(T, r.id, { status: 'archived', updatedAt: at(301) });
    await store.update(T, r.id, { status: 'activated', updatedAt: at(302) });
    await store.update(T, r.id, { status: 'deleted', updatedAt: at(303) });
    const vector = { vector: randomVector(seededRandom(6), 4), embedding: { model: 'other-model', dim: 4 } };
    await store.update(T, r.id, { updatedAt: at(304) }, vector, { cause: { type: 're-embed', model: 'other-model' } });
    await store.delete(T, [r.id], { at: at(305) });
    const events = await allEvents(history, T, r.id);
    expect(events.map((e) => e.kind)).toEqual([
      'created',
      'updated',
      'archived',
      'restored',
      'deleted',
      're-embedded',
      'deleted',
    ]);
    expect(events.map((e) => e.at)).toEqual([r.updatedAt, at(300), at(301), at(302), at(303), at(304), at(305)]);
    const [created, updated, , , , reembedded, deleted] = events as HistoryEvent[];
    expect(created).toMatchObject({ tenant: T, memoryId: r.id, before: null, caller, cause: { type: 'api' } });
    expect(created?.after).toMatchObject({ text: 'first', version: 1, embedding: { model: 'test-model', dim: 4 } });
    expect(updated?.before?.text).toBe('first');
    expect(updated?.after).toMatchObject({ text: 'second', version: 2 });
    expect(reembedded?.after?.embedding).toEqual({ model: 'other-model', dim: 4 });
    expect(reembedded?.cause).toEqual({ type: 're-embed', model: 'other-model' });
    expect(deleted).toMatchObject({ after: null, caller: { kind: 'system', id: null } });
    expect(deleted?.before).toMatchObject({ text: 'second', status: 'deleted' });
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  test('history: events outlive a hard delete, and a re-created id continues them', async () => {
    const store = current();
    const { history } = formationOf(store);
    const T = tenant();
    const r = makeRecord({ scope: { tenant: T } });
    await store.insert([r]);
    expect(await store.delete(T, [r.id])).toBe(1);
    expect((await store.get(T, [r.id])).length).toBe(0);
    await store.insert([makeRecord({ id: r.id, scope: { tenant: T }, text: 'again' })]);
    const events = await allEvents(history, T, r.id);
    expect(events.map((e) => e.kind)).toEqual(['created', 'deleted', 'created']);
    expect(events[2]?.after?.text).toBe('again');
  });

  test('history: redact rewrites the snapshots of events of the tenant only, nothing else of them', async () => {
    const store = current();
    const { history } = formationOf(store);
    const T = tenant();
    const other = tenant();
    const r = makeRecord({ scope: { tenant: T }, text: 'secret one' });
    await store.insert([r]);
    await store.update(T, r.id, { text: 'secret two', updatedAt: at(400) });
    await store.insert([makeRecord({ id: r.id, scope: { tenant: other }, text: 'secret one' })]);
    const events = await allEvents(history, T, r.id);
    const masked = events.map((e) => ({
      ...e,
      before: e.before && { ...e.before, text: '[masked]' },
      after: e.after && { ...e.after, text: '[masked]' },
    }));
    expect(await history.redact(T, masked)).toBe(2);
    const after = await allEvents(history, T, r.id);
    expect(after.map((e) => [e.before?.text ?? null, e.after?.text ?? null])).toEqual([
      [null, '[masked]'],
      ['[masked]', '[masked]'],
    ]);
    const unchanged = (e: HistoryEvent) => [e.id, e.kind, e.at, e.cause, e.caller, e.sourceTurnIds];
    expect(after.map(unchanged)).toEqual(events.map(unchanged));
    // The same ids in another tenant are not touched, nor is the memory itself.
    expect((await allEvents(history, other, r.id))[0]?.after?.text).toBe('secret one');
    expect(await history.redact(other, [{ ...(masked[0] as HistoryEvent), memoryId: 'nope' }])).toBe(0);
    expect((await store.get(T, [r.id]))[0]?.text).toBe('secret two');
  });

  test('history: a refused write records nothing', async () => {
    const store = current();
    const { history } = formationOf(store);
    const T = tenant();
    const r = makeRecord({ scope: { tenant: T } });
    await store.insert([r]);
    const fresh = makeRecord({ scope: { tenant: T } });
    await expectCode(store.insert([fresh, makeRecord({ id: r.id, scope: { tenant: T } })]), 'CONFLICT');
    expect((await history.list(T, fresh.id)).items).toEqual([]);
    expect((await history.list(T, r.id)).items.map((e) => e.kind)).toEqual(['created']);
    expect(await store.update(T, 'missing', { updatedAt: at(1) })).toBeNull();
    expect(await store.delete(T, ['missing'])).toBe(0);
    expect((await history.list(T, 'missing')).items).toEqual([]);
  });

  test('history: one tenant never reads another tenant’s events', async () => {
    const store = current();
    const { history } = formationOf(store);
    const A = tenant('a');
    const B = tenant('b');
    const r = makeRecord({ scope: { tenant: A } });
    await store.insert([r]);
    await store.delete(B, [r.id]);
    expect((await history.list(B, r.id)).items).toEqual([]);
    expect(await history.forMemories(B, [r.id])).toEqual([]);
    expect((await history.orphans(B)).items).toEqual([]);
    expect((await history.list(A, r.id)).items.map((e) => e.kind)).toEqual(['created']);
  });

  test('history: pages are stable and a bad cursor or limit is refused', async () => {
    const store = current();
    const { history } = formationOf(store);
    const T = tenant();
    const r = makeRecord({ scope: { tenant: T } });
    await store.insert([r]);
    for (let i = 0; i < 4; i++) await store.update(T, r.id, { text: `v${i}`, updatedAt: at(400 + i) });
    const one = await history.list(T, r.id, { limit: 10 });
    expect(one.nextCursor).toBeNull();
    expect(one.items.map((e) => e.after?.text)).toEqual([r.text, 'v0', 'v1', 'v2', 'v3']);
    expect(await allEvents(history, T, r.id, 2)).toEqual(one.items);
    await expectCode(history.list(T, r.id, { cursor: 'nope' }), 'INVALID_INPUT');
    await expectCode(history.list(T, r.id, { limit: 0 }), 'INVALID_LIMIT');
  });

  test('history: forMemories and orphans read what an export carries', async () => {
    const store = current();
    const { history } = formationOf(store);
    const T = tenant();
    const kept = makeRecord({ scope: { tenant: T } });
    const gone = makeRecord({ scope: { tenant: T } });
    await store.insert([kept, gone]);
    await store.delete(T, [gone.id]);
    const events = await history.forMemories(T, [kept.id, gone.id]);
    expect(events.map((e) => [e.memoryId, e.kind]).sort()).toEqual(
      [
        [kept.id, 'created'],
        [gone.id, 'created'],
        [gone.id, 'deleted'],
      ].sort(),
    );
    const orphans = await history.orphans(T, { limit: 1 });
    expect(orphans.items.map((e) => e.kind)).toEqual(['created']);
    const rest = await history.orphans(T, { limit: 1, cursor: orphans.nextCursor ?? undefined });
    expect(rest.items.map((e) => [e.memoryId, e.kind])).toEqual([[gone.id, 'deleted']]);
    expect(rest.nextCursor).toBeNull();
  });
}
