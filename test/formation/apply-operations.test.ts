import { describe, expect, it } from 'vitest';
import type { FormationOp, NewMemory } from '../../src/formation/operations.js';
import { isValidAt } from '../../src/formation/temporal.js';
import { expectCode } from '../support/expect-code.js';
import { MemoryWorld } from './support/memory-world.js';

function newMemory(id: string, text: string, patch: Partial<NewMemory> = {}): NewMemory {
  return {
    id,
    text,
    type: 'UserMemory',
    key: 'user.employer',
    tags: [],
    sources: [{ type: 'chat', id: 'e9' }],
    metadata: {},
    statedAt: '2026-03-04T10:00:00.000Z',
    validFrom: '2026-03-01T00:00:00.000Z',
    validTo: null,
    supersededBy: null,
    ...patch,
  };
}

const supersedeAcme: FormationOp[] = [
  { op: 'add', candidate: 0, sourceTurnIds: ['e9'], memory: newMemory('g', 'Ana works at Globex') },
  {
    op: 'supersede',
    candidate: 0,
    sourceTurnIds: ['e9'],
    id: 'acme',
    baseVersion: 1,
    successorId: 'g',
    validTo: '2026-03-01T00:00:00.000Z',
  },
];

describe('applyOperations: the reference semantics a store transaction implements', () => {
  it('applies a supersede with one history event per change (before/after, cause, caller, source turns)', () => {
    const world = new MemoryWorld();
    world.seed('acme', 'Ana works at Acme', { key: 'user.employer', validFrom: '2024-01-01T00:00:00.000Z' });
    const history = world.apply(supersedeAcme, '2026-03-04T12:00:00.000Z');
    expect(history.map((h) => [h.kind, h.memoryId])).toEqual([
      ['created', 'g'],
      ['superseded', 'acme'],
    ]);
    expect(history[1]).toMatchObject({
      tenant: 't',
      at: '2026-03-04T12:00:00.000Z',
      before: { validTo: null, supersededBy: null, version: 1 },
      after: { validTo: '2026-03-01T00:00:00.000Z', supersededBy: 'g', version: 2 },
      cause: { type: 'formation', jobId: 'job' },
      caller: { kind: 'system', id: null },
      sourceTurnIds: ['e9'],
    });
    expect(history[0]?.before).toBeNull();
    const acme = world.state.get('acme')!;
    expect(isValidAt(acme, '2025-01-01T00:00:00.000Z')).toBe(true);
    expect(isValidAt(acme, '2026-03-02T00:00:00.000Z')).toBe(false);
    expect(world.state.get('g')).toMatchObject({
      version: 1,
      status: 'activated',
      scope: world.scope,
      createdAt: '2026-03-04T12:00:00.000Z',
    });
  });

  it('is all or nothing: a stale version refuses the whole list and leaves the state untouched', async () => {
    const world = new MemoryWorld();
    world.seed('acme', 'Ana works at Acme', { key: 'user.employer', version: 3 });
    const before = world.state;
    const error = await expectCode(
      Promise.resolve().then(() => world.apply(supersedeAcme)),
      'CONFLICT',
    );
    expect(error.isRetryable).toBe(true);
    expect(world.state).toBe(before);
    expect(world.state.has('g')).toBe(false);
    expect(world.state.get('acme')?.supersededBy).toBeNull();
    expect(world.history).toEqual([]);
  });

  it('refuses to supersede a memory someone else already superseded, or to add an existing id', async () => {
    const world = new MemoryWorld();
    world.seed('acme', 'Ana works at Acme', { validTo: '2026-01-01T00:00:00.000Z', supersededBy: 'other' });
    await expectCode(
      Promise.resolve().then(() => world.apply(supersedeAcme)),
      'CONFLICT',
    );
    world.seed('g', 'taken');
    await expectCode(
      Promise.resolve().then(() => world.apply([supersedeAcme[0] as FormationOp])),
      'CONFLICT',
    );
  });

  it('refuses a validity that would end before it starts', async () => {
    const world = new MemoryWorld();
    world.seed('acme', 'Ana works at Acme', { validFrom: '2026-06-01T00:00:00.000Z' });
    await expectCode(
      Promise.resolve().then(() => world.apply(supersedeAcme)),
      'INVALID_INPUT',
    );
    const backwards = newMemory('b', 'x', {
      validFrom: '2026-03-01T00:00:00.000Z',
      validTo: '2026-01-01T00:00:00.000Z',
    });
    await expectCode(
      Promise.resolve().then(() => world.apply([{ op: 'add', candidate: 0, sourceTurnIds: [], memory: backwards }])),
      'INVALID_INPUT',
    );
  });

  it('update: same id, new version, sources merged; evidence: sources only, same version', () => {
    const world = new MemoryWorld();
    world.seed('hike', 'Ana likes hiking', { sources: [{ type: 'chat', id: 'e1' }] });
    world.apply([
      {
        op: 'update',
        candidate: 0,
        sourceTurnIds: ['e2'],
        id: 'hike',
        baseVersion: 1,
        patch: { text: 'Ana likes hiking in the Alps', tags: ['outdoors'] },
        addSources: [
          { type: 'chat', id: 'e2' },
          { type: 'chat', id: 'e1' },
        ],
      },
      {
        op: 'attach-evidence',
        candidate: 1,
        sourceTurnIds: ['e3'],
        id: 'hike',
        addSources: [{ type: 'chat', id: 'e3' }],
        confirmedAt: '2026-03-04T10:00:00.000Z',
      },
    ]);
    expect(world.state.get('hike')).toMatchObject({
      text: 'Ana likes hiking in the Alps',
      tags: ['outdoors'],
      version: 2,
    });
    expect(world.state.get('hike')?.sources.map((s) => s.id)).toEqual(['e1', 'e2', 'e3']);
    expect(world.history.map((h) => [h.kind, h.before?.version, h.after?.version])).toEqual([
      ['updated', 1, 2],
      ['confirmed', 2, 2],
    ]);
  });
});
