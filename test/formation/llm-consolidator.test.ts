import { afterEach, describe, expect, it } from 'vitest';
import type { ConsolidationBatch } from '../../src/formation/consolidator.js';
import { createLlmConsolidator } from '../../src/formation/llm-consolidator.js';
import { candidate } from './support/candidate-fixture.js';
import { chatFor, handleOf, PROVIDERS, type Provider } from './support/chat-for.js';
import { MemoryWorld } from './support/memory-world.js';
import {
  startScriptedLlm,
  type ScriptedLlmServer,
  type ScriptedReply,
  type ScriptedRequest,
} from './support/scripted-llm-server.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(provider: Provider, decide: (request: ScriptedRequest) => ScriptedReply) {
  const server = await startScriptedLlm({
    rules: [{ name: 'consolidate', match: 'memory store consistent', reply: decide }],
  });
  servers.push(server);
  const world = new MemoryWorld();
  const consolidator = createLlmConsolidator({ newId: world.newId }, { model: chatFor(provider, server) });
  return { server, world, consolidator };
}

/** The world of the tests: four existing memories with unguessable ids. */
function seedWorld(world: MemoryWorld): void {
  world.seed('mem-7f3a', 'Ana lives in Lisbon', { key: 'user.residence', validFrom: '2024-05-10T00:00:00.000Z' });
  world.seed('mem-01bc', 'Ana prefers oat milk in her coffee', { key: 'user.preference.oat_milk' });
  world.seed('mem-9d2e', 'Ana is a nurse', { key: 'user.job_title' });
  world.seed('mem-44aa', 'Ana is allergic to peanuts', {
    key: 'user.allergy.peanuts',
    validFrom: '2024-05-10T00:00:00.000Z',
  });
}

function batch(world: MemoryWorld, items: Array<[ReturnType<typeof candidate>, string[]]>): ConsolidationBatch {
  return {
    scope: world.scope,
    items: items.map(([c, ids]) => ({ candidate: c, neighbours: ids.map((id) => ({ memory: world.state.get(id)! })) })),
  };
}

const candidates = {
  cat: candidate('Ana adopted a cat named Miso', { kind: 'event' }),
  oat: candidate('Ana takes oat milk in coffee', { kind: 'preference', key: 'user.preference.oat_milk' }),
  senior: candidate('Ana was promoted to senior nurse', { key: 'user.job_title' }),
  berlin: candidate('Ana moved to Berlin last month (2026-02)', {
    key: 'user.residence',
    validFrom: '2026-02-01T00:00:00.000Z',
  }),
  nuts: candidate('Ana is allergic to tree nuts, not peanuts', { key: 'user.allergy.peanuts' }),
};

describe.each(PROVIDERS)('the LLM consolidator over %s', (provider) => {
  it('decides a whole batch in one call, through handles, into ADD / NOOP / UPDATE / SUPERSEDE operations', async () => {
    const { server, world, consolidator } = await setup(provider, ({ prompt }) => ({
      content: {
        decisions: [
          { candidate: 'c1', action: 'ADD', target: null, text: null },
          { candidate: 'c2', action: 'NOOP', target: handleOf(prompt, 'oat milk in her coffee'), text: null },
          {
            candidate: 'c3',
            action: 'update',
            target: handleOf(prompt, '"Ana is a nurse"'),
            text: 'Ana is a senior nurse',
          },
          { candidate: 'c4', action: 'SUPERSEDE', target: handleOf(prompt, 'Lisbon'), text: null },
          {
            candidate: 'c5',
            action: 'SUPERSEDE',
            target: handleOf(prompt, '"Ana is allergic to peanuts"'),
            text: null,
          },
        ],
      },
    }));
    seedWorld(world);
    const all = ['mem-7f3a', 'mem-01bc', 'mem-9d2e', 'mem-44aa'];
    const result = await consolidator.consolidate(
      batch(world, [
        [candidates.cat, []],
        [candidates.oat, ['mem-01bc', 'mem-9d2e']],
        [candidates.senior, ['mem-9d2e']],
        [candidates.berlin, ['mem-7f3a', 'mem-01bc']],
        [candidates.nuts, ['mem-44aa', 'mem-9d2e']],
      ]),
    );
    expect(server.calls).toHaveLength(1);
    const prompt = server.calls[0]?.request.prompt ?? '';
    for (const id of all) expect(prompt).not.toContain(id);
    expect(prompt).toContain(
      '[c4] key=user.residence · valid from 2026-02-01 · "Ana moved to Berlin last month (2026-02)"',
    );
    expect(result.notes).toEqual([]);
    expect(result.decisions.map((d) => [d.action, d.target, d.decidedBy])).toEqual([
      ['ADD', null, 'llm'],
      ['NOOP', { kind: 'memory', id: 'mem-01bc' }, 'llm'],
      ['UPDATE', { kind: 'memory', id: 'mem-9d2e' }, 'llm'],
      ['SUPERSEDE', { kind: 'memory', id: 'mem-7f3a' }, 'llm'],
      ['SUPERSEDE', { kind: 'memory', id: 'mem-44aa' }, 'llm'],
    ]);
    expect(result.usage.calls).toBe(1);
    world.apply(result.operations);
    expect(
      world
        .current()
        .map((m) => m.text)
        .sort(),
    ).toEqual([
      'Ana adopted a cat named Miso',
      'Ana is a senior nurse',
      'Ana is allergic to tree nuts, not peanuts',
      'Ana moved to Berlin last month (2026-02)',
      'Ana prefers oat milk in her coffee',
    ]);
    expect(world.state.get('mem-9d2e')).toMatchObject({ text: 'Ana is a senior nurse', version: 2 });
    expect(world.validAt('2025-01-01T00:00:00.000Z')).toContain('Ana lives in Lisbon');
    expect(world.history.map((h) => h.kind).sort()).toEqual([
      'confirmed',
      'created',
      'created',
      'created',
      'superseded',
      'superseded',
      'updated',
    ]);
  });

  it('never trusts a handle it did not give: those candidates fall back to the rules, with notes', async () => {
    const { world, consolidator } = await setup(provider, ({ prompt }) => ({
      content: {
        decisions: [
          { candidate: 'c1', action: 'SUPERSEDE', target: 'm99', text: null }, // invented
          { candidate: 'c2', action: 'NOOP', target: 'mem-7f3a', text: null }, // a real id, but never shown
          { candidate: 'c3', action: 'UPDATE', target: handleOf(prompt, 'Lisbon'), text: 'x' }, // not listed for c3
          { candidate: 'c9', action: 'ADD', target: null, text: null }, // no such candidate
        ],
      },
    }));
    seedWorld(world);
    const result = await consolidator.consolidate(
      batch(world, [
        [candidates.berlin, ['mem-7f3a']],
        [candidates.oat, ['mem-01bc']],
        [candidates.senior, ['mem-9d2e']],
        [candidates.cat, ['mem-7f3a']],
      ]),
    );
    expect(result.notes.map((n) => [n.candidate, n.problem])).toEqual([
      [0, 'unknown-handle'],
      [1, 'unknown-handle'],
      [2, 'unknown-handle'],
      [null, 'unknown-handle'],
      [3, 'missing-decision'],
    ]);
    // The rules: same key as the neighbour (and not a near-duplicate) → SUPERSEDE; nothing alike → ADD.
    expect(result.decisions.map((d) => [d.action, d.decidedBy])).toEqual([
      ['SUPERSEDE', 'rules'],
      ['SUPERSEDE', 'rules'],
      ['SUPERSEDE', 'rules'],
      ['ADD', 'rules'],
    ]);
    world.apply(result.operations);
    expect(world.currentWithKey('user.residence')).toEqual(['Ana moved to Berlin last month (2026-02)']);
  });

  it('falls back to the rules for the whole batch when the call fails, and says so', async () => {
    const { server, world, consolidator } = await setup(provider, () => ({ fault: 'server-error', status: 500 }));
    seedWorld(world);
    const result = await consolidator.consolidate(
      batch(world, [
        [candidates.berlin, ['mem-7f3a']],
        [candidates.cat, []],
      ]),
    );
    expect(server.calls).toHaveLength(3); // the client's own retries
    expect(result.notes).toEqual([
      expect.objectContaining({ candidate: null, problem: 'llm-failed', detail: expect.stringMatching(/^LLM_ERROR/) }),
    ]);
    expect(result.usage).toMatchObject({ calls: 0, failedCalls: 1 });
    expect(result.decisions.map((d) => [d.action, d.decidedBy])).toEqual([
      ['SUPERSEDE', 'rules'],
      ['ADD', 'rules'],
    ]);
    expect(result.operations.map((o) => o.op)).toEqual(['add', 'supersede', 'add']);
  });

  it('falls back when the answer is not JSON (a paid call) or has no decisions', async () => {
    for (const content of ['I would supersede m1.', { verdicts: [] }]) {
      const { world, consolidator } = await setup(provider, () => ({ content }));
      seedWorld(world);
      const result = await consolidator.consolidate(batch(world, [[candidates.berlin, ['mem-7f3a']]]));
      expect(result.usage).toMatchObject({ calls: 1, failedCalls: 0 });
      expect(result.notes.map((n) => n.problem)).toEqual(['llm-failed']);
      expect(result.decisions[0]).toMatchObject({ action: 'SUPERSEDE', decidedBy: 'rules' });
    }
  });

  it('makes no call when no candidate has a neighbour', async () => {
    const { server, world, consolidator } = await setup(provider, () => ({ content: { decisions: [] } }));
    const result = await consolidator.consolidate(
      batch(world, [
        [candidates.cat, []],
        [candidates.berlin, []],
      ]),
    );
    expect(server.calls).toHaveLength(0);
    expect(result.usage.calls).toBe(0);
    expect(result.notes).toEqual([]);
    expect(result.decisions.map((d) => d.action)).toEqual(['ADD', 'ADD']);
  });

  it('lets a candidate act on an earlier candidate of the batch', async () => {
    const { world, consolidator } = await setup(provider, ({ prompt }) => ({
      content: {
        decisions: [
          { candidate: 'c1', action: 'SUPERSEDE', target: handleOf(prompt, 'Lisbon'), text: null },
          { candidate: 'c2', action: 'SUPERSEDE', target: 'c1', text: null },
        ],
      },
    }));
    seedWorld(world);
    const munich = candidate('Ana moved on to Munich', {
      key: 'user.residence',
      validFrom: '2026-03-01T00:00:00.000Z',
    });
    const result = await consolidator.consolidate(
      batch(world, [
        [candidates.berlin, ['mem-7f3a']],
        [munich, ['mem-7f3a']],
      ]),
    );
    expect(result.decisions[1]).toMatchObject({
      action: 'SUPERSEDE',
      target: { kind: 'candidate', index: 0 },
      decidedBy: 'llm',
    });
    world.apply(result.operations);
    expect(world.currentWithKey('user.residence')).toEqual(['Ana moved on to Munich']);
    expect(world.validAt('2026-02-15T00:00:00.000Z').filter((t) => t.includes('moved'))).toEqual([
      'Ana moved to Berlin last month (2026-02)',
    ]);
  });
});
