import { expect } from 'vitest';
import { applyOperations, type StoredMemory } from '../../../src/model/formation/apply-operations.js';
import type { ApplyContext, OperationVector } from '../../../src/model/formation/formation-store.js';
import type { HistoryEvent } from '../../../src/model/formation/history.js';
import type { FormationOp, NewMemory } from '../../../src/model/formation/operations.js';
import type { FormationJob } from '../../../src/model/formation/work-queue.js';
import type { Scope } from '../../../src/model/scope.js';
import type { MemoryStore } from '../../../src/store/memory-store.js';
import { expectCode } from '../../support/expect-code.js';
import { randomVector, seededRandom, withVector } from '../fixtures/records.js';
import { formationOf, type CaseContext } from './case-context.js';
import { windowJob } from './episode-cases.js';
import { sec } from './queue-cases.js';

const MODEL = { model: 'test-model', dim: 8 };
const AT = '2026-03-04T12:00:00.000Z';
const RESULT = {
  candidates: 3,
  operations: 4,
  extraction: { calls: 1, failedCalls: 0, inputTokens: 100, outputTokens: 20, callsWithoutUsage: 0 },
  consolidation: { calls: 1, failedCalls: 0, inputTokens: 50, outputTokens: 10, callsWithoutUsage: 0 },
};

function vectorFor(seed: number): OperationVector {
  return { vector: randomVector(seededRandom(seed), MODEL.dim), embedding: MODEL };
}

function newMemory(id: string, text: string, patch: Partial<NewMemory> = {}): NewMemory {
  return {
    id,
    text,
    type: 'UserMemory',
    key: 'user.employer',
    tags: ['work'],
    sources: [{ type: 'chat', id: 'e9' }],
    metadata: { formation: { method: 'rule' } },
    statedAt: '2026-03-04T10:00:00.000Z',
    validFrom: '2026-03-01T00:00:00.000Z',
    validTo: null,
    supersededBy: null,
    ...patch,
  };
}

/** A tenant with four memories and one claimed job (owner `w1` unless named). */
async function world(
  store: MemoryStore,
  T: string,
  owner = 'w1',
): Promise<{ scope: Scope; job: FormationJob; context: ApplyContext }> {
  const scope = { tenant: T, user: 'ana' };
  const seed = (id: string, text: string, n: number, extra = {}) =>
    withVector(vectorFor(n).vector, MODEL.model, { id, text, scope, type: 'UserMemory', ...extra });
  await store.insert([
    seed('acme', 'Ana works at Acme', 1, { key: 'user.employer', validFrom: '2024-01-01T00:00:00.000Z' }),
    seed('tea', 'Ana likes tea', 2, {
      key: 'user.drink',
      sources: [{ type: 'chat', id: 'e1' }],
      validFrom: '2025-01-01T00:00:00.000Z',
    }),
    seed('city', 'Ana lives in Lisbon', 3, { key: 'user.residence', validFrom: '2025-01-01T00:00:00.000Z' }),
    seed('old', 'Ana worked at Initech', 4, {
      validFrom: '2020-01-01T00:00:00.000Z',
      validTo: '2023-01-01T00:00:00.000Z',
      supersededBy: 'acme',
    }),
  ]);
  const { queue } = formationOf(store);
  await queue.enqueue(T, [windowJob(scope, 'window-1', ['e9'])], sec(0));
  const [job] = await queue.claim({ owner, limit: 1, now: sec(1), leaseMs: 600_000, tenant: T });
  const context: ApplyContext = {
    tenant: T,
    scope,
    at: AT,
    cause: {
      type: 'formation',
      jobId: job!.id,
      windowKey: 'window-1',
      extractor: 'rules@r1',
      consolidator: 'rules@c1',
      decidedBy: 'rules',
    },
    caller: { kind: 'system', id: null },
  };
  return { scope, job: job!, context };
}

const window: FormationOp[] = [
  { op: 'add', candidate: 0, sourceTurnIds: ['e9'], memory: newMemory('globex', 'Ana works at Globex') },
  {
    op: 'supersede',
    candidate: 0,
    sourceTurnIds: ['e9'],
    id: 'acme',
    baseVersion: 1,
    successorId: 'globex',
    validTo: '2026-03-01T00:00:00.000Z',
  },
  {
    op: 'update',
    candidate: 1,
    sourceTurnIds: ['e10'],
    id: 'tea',
    baseVersion: 1,
    patch: { text: 'Ana likes green tea', tags: ['drink'] },
    addSources: [{ type: 'chat', id: 'e10' }],
  },
  {
    op: 'attach-evidence',
    candidate: 2,
    sourceTurnIds: ['e11'],
    id: 'city',
    addSources: [{ type: 'chat', id: 'e11' }],
    confirmedAt: '2026-03-04T09:00:00.000Z',
  },
];

const vectors = (): Map<string, OperationVector> =>
  new Map([
    ['globex', vectorFor(11)],
    ['tea', vectorFor(12)],
  ]);

const ALL_IDS = ['acme', 'tea', 'city', 'old', 'globex', 'dup'];

/** Everything a window could touch: the tenant's memories, their events, and the job. */
async function everything(store: MemoryStore, T: string, ids: string[]): Promise<unknown> {
  const { history, queue } = formationOf(store);
  return {
    memories: (await store.list({ scope: { tenant: T }, statuses: ['activated', 'archived', 'deleted'] })).items,
    events: await history.forMemories(T, ids),
    jobs: (await queue.list(T)).items,
  };
}

/**
 * The window of these cases, ready to complete in tenant `T` by `owner`, with what it must leave
 * untouched when it is refused or killed (`before.read()` equals `before.value` until then).
 */
export async function windowFixture(store: MemoryStore, T: string, owner: string) {
  const { job, context } = await world(store, T, owner);
  const read = () => everything(store, T, ALL_IDS);
  return {
    job,
    context,
    operations: window,
    vectors: vectors(),
    result: RESULT,
    before: { value: await read(), read },
  };
}

const withoutId = (events: HistoryEvent[]) => events.map(({ id: _id, ...rest }) => rest);

/** Formation's window transaction, compared with the reference semantics (`applyOperations`). */
export function windowCases({ test, store: current, tenant }: CaseContext): void {
  test('completeWindow applies a window as applyOperations does, with its events and the job succeeded', async () => {
    const store = current();
    const formation = formationOf(store);
    const T = tenant();
    const { job, context } = await world(store, T);
    const before = new Map(
      (await store.get(T, ['acme', 'tea', 'city', 'globex'])).map((m) => [m.id, m as StoredMemory]),
    );
    let n = 0;
    const oracle = applyOperations(before, window, context, () => `e${++n}`, vectors());
    const result = await formation.completeWindow(
      { id: job.id, owner: 'w1', result: RESULT },
      window,
      vectors(),
      context,
    );
    const ids = ['globex', 'acme', 'tea', 'city'];
    const stored = await store.get(T, ids);
    expect(stored).toEqual(ids.map((id) => oracle.state.get(id)));
    expect(result.memories).toEqual(stored);
    expect(withoutId(result.history)).toEqual(withoutId(oracle.history));
    const logged = await formation.history.forMemories(T, ids);
    const fromWindow = logged.filter((e) => e.cause.type === 'formation');
    expect(withoutId(fromWindow).sort((a, b) => a.memoryId.localeCompare(b.memoryId))).toEqual(
      withoutId(oracle.history).sort((a, b) => a.memoryId.localeCompare(b.memoryId)),
    );
    const [done] = (await formation.queue.list(T)).items;
    expect(done).toMatchObject({ state: 'succeeded', result: RESULT, lease: null, finishedAt: AT, attempts: 1 });
    const teaVector = (await store.getVectors(T, ['tea'])).get('tea');
    expect([...teaVector!]).toEqual([...vectorFor(12).vector]);
  });

  test('completeWindow: the superseded memory drops out of search at instants after its end', async () => {
    const store = current();
    const T = tenant();
    const { job, scope, context } = await world(store, T);
    await formationOf(store).completeWindow({ id: job.id, owner: 'w1', result: RESULT }, window, vectors(), context);
    const search = async (validAt: string, query: Float32Array) => {
      const filter = { scope, validAt, types: ['UserMemory' as const] };
      const dense = await store.denseSearch({ filter, vector: query, model: MODEL.model, limit: 10 });
      const lexical = await store.lexicalSearch({ filter, terms: ['works'], limit: 10, space: MODEL });
      return { dense: dense.map((d) => d.id).sort(), lexical: lexical.map((d) => d.id).sort() };
    };
    const now = await search('2026-03-05T00:00:00.000Z', vectorFor(1).vector);
    expect(now.dense).toEqual(['city', 'globex', 'tea']);
    expect(now.lexical).toEqual(['globex']);
    const then = await search('2025-06-01T00:00:00.000Z', vectorFor(1).vector);
    expect(then.dense).toEqual(['acme', 'city', 'tea']);
    expect(then.lexical).toEqual(['acme']);
  });

  test('completeWindow: a job already succeeded answers its result again and changes nothing', async () => {
    const store = current();
    const formation = formationOf(store);
    const T = tenant();
    const { job, context } = await world(store, T);
    const first = await formation.completeWindow(
      { id: job.id, owner: 'w1', result: RESULT },
      window,
      vectors(),
      context,
    );
    const after = await everything(store, T, ALL_IDS);
    const again = await formation.completeWindow(
      { id: job.id, owner: 'someone', result: { ...RESULT, candidates: 99 } },
      [{ op: 'add', candidate: 0, sourceTurnIds: [], memory: newMemory('never', 'never stored') }],
      new Map(),
      context,
    );
    expect(again.history).toEqual(first.history);
    expect(again.memories).toEqual(first.memories);
    expect(await everything(store, T, [...ALL_IDS, 'never'])).toEqual(after);
  });

  test('completeWindow refuses, writing nothing: lease lost, version moved, not current, id taken, bad validity, stale vector', async () => {
    const store = current();
    const formation = formationOf(store);
    const T = tenant();
    const { job, context } = await world(store, T);
    const untouched = await everything(store, T, ALL_IDS);
    const complete = (ops: FormationOp[], owner = 'w1', vs = vectors()) =>
      formation.completeWindow({ id: job.id, owner, result: RESULT }, ops, vs, context);
    await expectCode(complete(window, 'w2'), 'CONFLICT');
    const moved = { ...(window[2] as Extract<FormationOp, { op: 'update' }>), baseVersion: 2 };
    await expectCode(complete([window[0]!, moved]), 'CONFLICT');
    const ended: FormationOp = {
      ...(window[1] as Extract<FormationOp, { op: 'supersede' }>),
      id: 'old',
      baseVersion: null,
    };
    await expectCode(complete([window[0]!, ended]), 'CONFLICT');
    await expectCode(complete([{ ...window[0]!, memory: newMemory('city', 'taken') } as FormationOp]), 'CONFLICT');
    const early = { ...(window[1] as Extract<FormationOp, { op: 'supersede' }>), validTo: '2020-01-01T00:00:00.000Z' };
    await expectCode(complete([window[0]!, early]), 'INVALID_INPUT');
    await expectCode(complete(window, 'w1', new Map([['globex', vectorFor(11)]])), 'INVALID_INPUT');
    await expectCode(
      formation.completeWindow({ id: job.id, owner: 'w1', result: RESULT }, window, vectors(), {
        ...context,
        tenant: tenant('other'),
        scope: { tenant: 'x' },
      }),
      'INVALID_INPUT',
    );
    const elsewhere = tenant('elsewhere');
    await expectCode(
      formation.completeWindow({ id: job.id, owner: 'w1', result: RESULT }, window, vectors(), {
        ...context,
        tenant: elsewhere,
        scope: { tenant: elsewhere },
      }),
      'NOT_FOUND',
    );
    expect(await everything(store, T, ALL_IDS)).toEqual(untouched);
    // Still leased by w1, which can then complete it.
    await complete(window);
    expect((await formation.queue.list(T)).items[0]?.state).toBe('succeeded');
  });
}
