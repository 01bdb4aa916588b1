import { afterEach, describe, expect, it } from 'vitest';
import { formWindow, type FormationDeps } from '../../src/formation/form-window.js';
import { createLlmConsolidator } from '../../src/formation/llm-consolidator.js';
import { createLlmExtractor } from '../../src/formation/llm-extractor.js';
import { chatFor, handleOf, PROVIDERS, type Provider } from './support/chat-for.js';
import { conversation } from './support/conversation.js';
import { MemoryWorld } from './support/memory-world.js';
import { startScriptedLlm, type ScriptedLlmServer, type ScriptRule } from './support/scripted-llm-server.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const EXTRACT = 'durable memories';
const CONSOLIDATE = 'memory store consistent';

const fact = (text: string, turns: string[], key: string | null, extra: Record<string, unknown> = {}) => ({
  text,
  kind: 'user_fact',
  key,
  tags: [],
  confidence: 0.9,
  turns,
  when: null,
  ...extra,
});

const firstSession = conversation(
  [
    ['user', "Hi, I'm Ana. I live in Lisbon and work at Acme as a nurse."],
    ['assistant', 'Nice to meet you, Ana!'],
    ['user', "I'm allergic to peanuts, and I love green tea."],
  ],
  { at: '2024-05-10T09:00:00.000Z', prefix: 's1-' },
);

const secondSession = conversation(
  [
    ['user', 'Big news: I moved to Berlin last month and started at Globex.'],
    ['assistant', 'Congratulations!'],
    ['user', 'Still drinking green tea every morning, I love green tea.'],
    ['user', "I'm a senior nurse now. Also the allergist says it's not peanuts: I'm allergic to tree nuts."],
    ['user', "I'm flying to Rome next Friday."],
  ],
  { at: '2026-03-04T10:00:00.000Z', prefix: 's2-' },
);

const scriptRules: ScriptRule[] = [
  {
    name: 'extract-1',
    match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('I live in Lisbon'),
    reply: {
      content: {
        memories: [
          fact('Ana lives in Lisbon', ['t1'], 'user.residence'),
          fact('Ana works at Acme', ['t1'], 'user.employer'),
          fact('Ana is a nurse', ['t1'], 'user.job_title'),
          fact('Ana is allergic to peanuts', ['t3'], 'user.allergy.peanuts'),
          fact('Ana loves green tea', ['t3'], 'user.preference.green_tea', { kind: 'preference' }),
        ],
      },
    },
  },
  {
    name: 'extract-2',
    match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('moved to Berlin'),
    reply: {
      content: {
        memories: [
          fact('Ana moved to Berlin last month', ['t1'], 'user.residence', { when: 'last month' }),
          fact('Ana works at Globex', ['t1'], 'user.employer'),
          fact('Ana loves green tea', ['t3'], 'user.preference.green_tea', { kind: 'preference' }),
          fact('Ana is a senior nurse', ['t4'], 'user.job_title'),
          fact('Ana is allergic to tree nuts, not peanuts', ['t4'], 'user.allergy.tree_nuts'),
          fact('Ana is flying to Rome next Friday', ['t5'], null, { kind: 'event', when: 'next Friday' }),
        ],
      },
    },
  },
  {
    name: 'consolidate-2',
    match: (r) => r.prompt.includes(CONSOLIDATE) && r.prompt.includes('Globex'),
    reply: ({ prompt }) => ({
      content: {
        decisions: [
          { candidate: 'c1', action: 'SUPERSEDE', target: handleOf(prompt, '"Ana lives in Lisbon"'), text: null },
          { candidate: 'c2', action: 'SUPERSEDE', target: handleOf(prompt, '"Ana works at Acme"'), text: null },
          { candidate: 'c3', action: 'NOOP', target: handleOf(prompt, '"Ana loves green tea"', 'm'), text: null },
          {
            candidate: 'c4',
            action: 'UPDATE',
            target: handleOf(prompt, '"Ana is a nurse"'),
            text: 'Ana is a senior nurse',
          },
          {
            candidate: 'c5',
            action: 'SUPERSEDE',
            target: handleOf(prompt, '"Ana is allergic to peanuts"'),
            text: null,
          },
          { candidate: 'c6', action: 'ADD', target: null, text: null },
        ],
      },
    }),
  },
];

async function pipeline(provider: Provider, rules: ScriptRule[], world = new MemoryWorld(undefined, -1)) {
  const server = await startScriptedLlm({ rules });
  servers.push(server);
  const model = chatFor(provider, server);
  const deps: FormationDeps = {
    extractor: createLlmExtractor({ model }),
    consolidator: createLlmConsolidator({ newId: world.newId }, { model }),
    neighbours: world.neighbours,
  };
  return { server, world, deps };
}

const byText = (world: MemoryWorld, text: string) => [...world.state.values()].find((m) => m.text === text);

describe.each(PROVIDERS)('formation end to end over %s: conversations become time-valid facts', (provider) => {
  it('new facts, a repeated preference, a refined fact, a move, a job change, an allergy correction, a relative date', async () => {
    const { server, world, deps } = await pipeline(provider, scriptRules);
    const first = await formWindow(deps, firstSession);
    world.apply(first.operations, '2024-05-10T09:01:00.000Z');
    expect(first.consolidation.decisions.map((d) => d.action)).toEqual(['ADD', 'ADD', 'ADD', 'ADD', 'ADD']);
    expect(server.calls.map((c) => c.rule)).toEqual(['extract-1']); // nothing to compare with: no consolidation call

    const second = await formWindow(deps, secondSession);
    world.apply(second.operations, '2026-03-04T10:01:00.000Z');
    expect(server.calls.map((c) => c.rule)).toEqual(['extract-1', 'extract-2', 'consolidate-2']);
    expect(server.unmatched()).toEqual([]);
    expect(second.consolidation.decisions.map((d) => [d.action, d.decidedBy])).toEqual([
      ['SUPERSEDE', 'llm'],
      ['SUPERSEDE', 'llm'],
      ['NOOP', 'llm'],
      ['UPDATE', 'llm'],
      ['SUPERSEDE', 'llm'],
      ['ADD', 'llm'],
    ]);

    // Valid now: the current values only.
    expect(world.validAt('2026-03-05T00:00:00.000Z')).toEqual([
      'Ana is a senior nurse',
      'Ana is allergic to tree nuts, not peanuts',
      'Ana is flying to Rome next Friday (2026-03-13)',
      'Ana loves green tea',
      'Ana moved to Berlin last month (2026-02)',
      'Ana works at Globex',
    ]);
    // As of mid-2025: the old values.
    expect(world.validAt('2025-06-01T00:00:00.000Z')).toEqual([
      'Ana is a senior nurse', // refined in place (UPDATE keeps the id and the start)
      'Ana is allergic to peanuts',
      'Ana lives in Lisbon',
      'Ana loves green tea',
      'Ana works at Acme',
    ]);
    const lisbon = byText(world, 'Ana lives in Lisbon');
    const berlin = byText(world, 'Ana moved to Berlin last month (2026-02)');
    // The move started "last month" as said on 4 March 2026: Lisbon ends on 1 February 2026.
    expect(lisbon).toMatchObject({ validTo: '2026-02-01T00:00:00.000Z', supersededBy: berlin?.id });
    expect(berlin).toMatchObject({
      validFrom: '2026-02-01T00:00:00.000Z',
      validTo: null,
      sources: [{ type: 'chat', id: 's2-1' }],
    });
    // No date for the job change: Acme ends when Globex was stated.
    expect(byText(world, 'Ana works at Acme')?.validTo).toBe('2026-03-04T10:00:00.000Z');
    // The repeated preference gained evidence, not a row.
    expect([...world.state.values()].filter((m) => m.text === 'Ana loves green tea')).toHaveLength(1);
    expect(byText(world, 'Ana loves green tea')?.sources.map((s) => s.id)).toEqual(['s1-3', 's2-3']);
    expect(world.history.filter((h) => h.memoryId === lisbon?.id).map((h) => h.kind)).toEqual([
      'created',
      'superseded',
    ]);
    expect(world.state.size).toBe(9); // 5 + Berlin, Globex, tree nuts, Rome: nothing removed
  });
});
