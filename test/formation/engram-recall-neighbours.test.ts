import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import { formWindow } from '../../src/formation/form-window.js';
import { NEIGHBOUR_TYPES, type NeighbourFinder } from '../../src/formation/neighbours.js';
import { createRuleConsolidator } from '../../src/formation/rule-consolidator.js';
import { createRuleExtractor } from '../../src/formation/rule-extractor.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { conversation } from './support/conversation.js';

let dir: string;
let engram: Engram;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-formation-'));
  engram = await Engram.open({
    store: createSqliteStore({ path: join(dir, 'engram.db') }),
    embedder: new HashedEmbedder({ dim: 128 }),
    env: {},
  });
});
afterEach(async () => {
  await engram.close();
  await rm(dir, { recursive: true, force: true });
});

/** The neighbour finder phase 2 wires in: Engram's own recall over the candidate's text, formed types only. */
const recallNeighbours: NeighbourFinder = async (candidate, { scope, limit, signal }) => {
  const result = await engram.recall(candidate.text, {
    scope,
    limit,
    types: [...NEIGHBOUR_TYPES],
    threshold: 0,
    signal,
  });
  return result.hits.map((hit) => ({ memory: hit.memory, cosine: hit.explanation.cosine }));
};

describe('neighbours backed by Engram’s own recall (SQLite)', () => {
  it('finds the stored fact, not the raw turn, and not another tenant’s', async () => {
    const ana = { tenant: 'acme', user: 'ana' };
    const lisbon = await engram.add(
      { text: 'Ana lives in Lisbon', type: 'UserMemory', key: 'user.residence', statedAt: '2024-05-10T09:00:00Z' },
      { scope: ana },
    );
    await engram.add({ text: 'I live in Lisbon', type: 'WorkingMemory', key: 'user.residence' }, { scope: ana });
    const madrid = await engram.add(
      { text: 'Ana lives in Madrid', type: 'UserMemory', key: 'user.residence' },
      { scope: { tenant: 'other', user: 'ana' } },
    );
    const world = {
      newId: (() => {
        let n = 0;
        return () => `new-${++n}`;
      })(),
    };
    const deps = {
      extractor: createRuleExtractor(),
      consolidator: createRuleConsolidator(world, { embedder: engram.embedder }),
      neighbours: recallNeighbours,
    };

    const outcome = await formWindow(
      deps,
      conversation([['user', 'I moved to Berlin last month.']], { scope: ana, speaker: 'Ana' }),
    );
    expect(outcome.consolidation.decisions).toEqual([
      expect.objectContaining({ action: 'SUPERSEDE', target: { kind: 'memory', id: lisbon.id } }),
    ]);
    expect(outcome.operations).toEqual([
      expect.objectContaining({
        op: 'add',
        memory: expect.objectContaining({ id: 'new-1', text: 'Ana moved to Berlin last month (2026-02)' }),
      }),
      expect.objectContaining({
        op: 'supersede',
        id: lisbon.id,
        successorId: 'new-1',
        validTo: '2026-02-01T00:00:00.000Z',
      }),
    ]);

    // The other tenant's user says the same: it supersedes its own Madrid, never acme's Lisbon.
    const other = await formWindow(
      deps,
      conversation([['user', 'I moved to Berlin last month.']], {
        scope: { tenant: 'other', user: 'ana' },
        speaker: 'Ana',
      }),
    );
    expect(other.consolidation.decisions[0]).toMatchObject({
      action: 'SUPERSEDE',
      target: { kind: 'memory', id: madrid.id },
    });
  });
});
