import { describe, expect, it } from 'vitest';
import type { ConsolidationBatch } from '../../src/formation/consolidator.js';
import { createRuleConsolidator, decideByRules } from '../../src/formation/rule-consolidator.js';
import { contentOverlap } from '../../src/formation/text-overlap.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { candidate } from './support/candidate-fixture.js';
import { MemoryWorld } from './support/memory-world.js';

function batchOf(
  world: MemoryWorld,
  items: Array<{ c: ReturnType<typeof candidate>; ids: string[] }>,
): ConsolidationBatch {
  return {
    scope: world.scope,
    items: items.map(({ c, ids }) => ({
      candidate: c,
      neighbours: ids.map((id) => ({ memory: world.state.get(id)! })),
    })),
  };
}

describe('contentOverlap', () => {
  it('counts the differing value, not the shared frame', () => {
    expect(contentOverlap('Ana lives in Berlin', 'Ana lives in Lisbon')).toBe(0.5);
    expect(contentOverlap('The user prefers tea.', 'the user PREFERS tea')).toBe(1);
  });
});

describe('the deterministic consolidation rules', () => {
  it('near-duplicate → NOOP, evidence attached', async () => {
    const world = new MemoryWorld();
    world.seed('tea', 'The user prefers green tea', { key: 'user.preference.tea' });
    const consolidator = createRuleConsolidator({ newId: world.newId });
    const result = await consolidator.consolidate(
      batchOf(world, [{ c: candidate('The user prefers green tea!', { sourceTurnIds: ['e7'] }), ids: ['tea'] }]),
    );
    expect(result.decisions[0]).toMatchObject({
      action: 'NOOP',
      target: { kind: 'memory', id: 'tea' },
      decidedBy: 'rules',
    });
    expect(result.operations).toEqual([
      {
        op: 'attach-evidence',
        id: 'tea',
        candidate: 0,
        sourceTurnIds: ['e7'],
        addSources: [{ type: 'chat', id: 'e7' }],
        confirmedAt: '2026-03-04T10:00:00.000Z',
      },
    ]);
  });

  it('same key, different value → SUPERSEDE: the old validity ends where the new one begins', async () => {
    const world = new MemoryWorld();
    world.seed('lisbon', 'The user lives in Lisbon', { key: 'user.residence', validFrom: '2024-05-01T00:00:00.000Z' });
    const c = candidate('The user moved to Berlin last month (2026-02)', {
      key: 'user.residence',
      validFrom: '2026-02-01T00:00:00.000Z',
    });
    const result = await createRuleConsolidator({ newId: world.newId }).consolidate(
      batchOf(world, [{ c, ids: ['lisbon'] }]),
    );
    expect(result.decisions[0]).toMatchObject({ action: 'SUPERSEDE', target: { kind: 'memory', id: 'lisbon' } });
    expect(result.operations.map((o) => o.op)).toEqual(['add', 'supersede']);
    expect(result.operations[1]).toMatchObject({
      id: 'lisbon',
      successorId: 'f1',
      validTo: '2026-02-01T00:00:00.000Z',
      baseVersion: 1,
    });
    world.apply(result.operations);
    expect(world.validAt('2025-06-01T00:00:00.000Z')).toEqual(['The user lives in Lisbon']);
    expect(world.validAt('2026-03-05T00:00:00.000Z')).toEqual(['The user moved to Berlin last month (2026-02)']);
    expect(world.state.get('lisbon')).toMatchObject({
      supersededBy: 'f1',
      validTo: '2026-02-01T00:00:00.000Z',
      version: 2,
    });
  });

  it('otherwise → ADD (a second allergy is not a contradiction of the first)', async () => {
    const world = new MemoryWorld();
    world.seed('peanuts', 'The user is allergic to peanuts', { key: 'user.allergy.peanuts' });
    const result = await createRuleConsolidator({ newId: world.newId }).consolidate(
      batchOf(world, [
        { c: candidate('The user is allergic to shellfish', { key: 'user.allergy.shellfish' }), ids: ['peanuts'] },
      ]),
    );
    expect(result.decisions[0]?.action).toBe('ADD');
    expect(result.operations).toHaveLength(1);
    expect(result.operations[0]).toMatchObject({
      op: 'add',
      memory: { id: 'f1', key: 'user.allergy.shellfish', type: 'UserMemory', validTo: null },
    });
  });

  it('earlier candidates of the batch count: a repeat is formed once, a second move chains', async () => {
    const world = new MemoryWorld();
    world.seed('lisbon', 'The user lives in Lisbon', { key: 'user.residence', validFrom: '2024-05-01T00:00:00.000Z' });
    const result = await createRuleConsolidator({ newId: world.newId }).consolidate(
      batchOf(world, [
        {
          c: candidate('The user moved to Berlin', { key: 'user.residence', validFrom: '2026-01-10T00:00:00.000Z' }),
          ids: ['lisbon'],
        },
        {
          c: candidate('The user moved to Berlin.', {
            key: 'user.residence',
            validFrom: '2026-01-10T00:00:00.000Z',
            sourceTurnIds: ['e2'],
          }),
          ids: ['lisbon'],
        },
        {
          c: candidate('The user moved to Munich', { key: 'user.residence', validFrom: '2026-03-01T00:00:00.000Z' }),
          ids: ['lisbon'],
        },
      ]),
    );
    expect(result.decisions.map((d) => d.action)).toEqual(['SUPERSEDE', 'NOOP', 'SUPERSEDE']);
    expect(result.decisions[1]?.target).toEqual({ kind: 'candidate', index: 0 });
    world.apply(result.operations);
    expect(world.current().map((m) => m.text)).toEqual(['The user moved to Munich']);
    expect(world.state.get('f1')).toMatchObject({
      text: 'The user moved to Berlin',
      supersededBy: 'f2',
      validTo: '2026-03-01T00:00:00.000Z',
    });
    expect(world.state.get('f1')?.sources).toEqual([
      { type: 'chat', id: 'e1' },
      { type: 'chat', id: 'e2' },
    ]);
    expect(world.validAt('2026-02-01T00:00:00.000Z')).toEqual(['The user moved to Berlin']);
  });

  it('a late, older statement is added as already ended instead of replacing the current fact', async () => {
    const world = new MemoryWorld();
    world.seed('berlin', 'The user lives in Berlin', { key: 'user.residence', validFrom: '2026-02-01T00:00:00.000Z' });
    const c = candidate('The user lives in Lisbon', {
      key: 'user.residence',
      validFrom: '2024-05-01T00:00:00.000Z',
      statedAt: '2024-05-01T00:00:00.000Z',
    });
    const result = await createRuleConsolidator({ newId: world.newId }).consolidate(
      batchOf(world, [{ c, ids: ['berlin'] }]),
    );
    expect(result.operations).toEqual([
      expect.objectContaining({
        op: 'add',
        memory: expect.objectContaining({ validTo: '2026-02-01T00:00:00.000Z', supersededBy: 'berlin' }),
      }),
    ]);
    world.apply(result.operations);
    expect(world.current().map((m) => m.id)).toEqual(['berlin']);
    expect(world.validAt('2025-01-01T00:00:00.000Z')).toEqual(['The user lives in Lisbon']);
  });

  it('ignores neighbours that are no longer current', async () => {
    const world = new MemoryWorld();
    world.seed('old', 'The user lives in Lisbon', {
      key: 'user.residence',
      validTo: '2025-01-01T00:00:00.000Z',
      supersededBy: 'x',
    });
    const decisions = await decideByRules(
      batchOf(world, [{ c: candidate('The user lives in Lisbon', { key: 'user.residence' }), ids: ['old'] }]),
    );
    expect(decisions[0]?.action).toBe('ADD');
  });

  it('uses cosine with text overlap when vectors are known, and a stricter overlap without them', async () => {
    const world = new MemoryWorld();
    world.seed('m', 'Ana loves hiking mountains on weekends with her dog Rex');
    const c = candidate('Ana loves hiking mountains on weekends with her brown dog Rex');
    const textOnly = await decideByRules(batchOf(world, [{ c, ids: ['m'] }]));
    expect(textOnly[0]?.action).toBe('ADD'); // overlap 8/9 < 0.9 without a cosine; the hashed cosine is 0.95
    const embedder = new HashedEmbedder({ dim: 256 });
    const withVectors = await decideByRules(batchOf(world, [{ c, ids: ['m'] }]), { embedder });
    expect(withVectors[0]).toMatchObject({ action: 'NOOP', reason: 'near-duplicate' });
    const strict = await decideByRules(batchOf(world, [{ c, ids: ['m'] }]), { embedder, duplicateCosine: 0.999 });
    expect(strict[0]?.action).toBe('ADD');
  });
});
