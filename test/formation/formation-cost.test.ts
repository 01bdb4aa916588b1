import { afterEach, describe, expect, it } from 'vitest';
import { summarizeCost, type WindowCost } from '../../src/formation/cost-report.js';
import { formWindow, type FormationDeps } from '../../src/formation/form-window.js';
import { createLlmConsolidator } from '../../src/formation/llm-consolidator.js';
import { createLlmExtractor } from '../../src/formation/llm-extractor.js';
import { NO_USAGE } from '../../src/formation/llm-usage.js';
import { planWindows } from '../../src/formation/plan-windows.js';
import { createRuleConsolidator } from '../../src/formation/rule-consolidator.js';
import { createRuleExtractor } from '../../src/formation/rule-extractor.js';
import { chatFor, handleOf } from './support/chat-for.js';
import { MemoryWorld } from './support/memory-world.js';
import { startScriptedLlm, type ScriptedLlmServer } from './support/scripted-llm-server.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** 40 turns of one session: small talk around two statements. */
function fortyTurns() {
  return Array.from({ length: 40 }, (_, i) => ({
    id: `e${i + 1}`,
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    speaker: i % 2 === 0 ? 'Ana' : null,
    text: i === 0 ? 'I live in Lisbon.' : i === 20 ? 'I moved to Berlin last month.' : `small talk number ${i}`,
    occurredAt: i < 20 ? '2024-05-10T09:00:00.000Z' : '2026-03-04T10:00:00.000Z',
    session: 's',
  }));
}

async function run(deps: FormationDeps, world: MemoryWorld, maxTurns: number): Promise<WindowCost[]> {
  const costs: WindowCost[] = [];
  for (const window of planWindows(fortyTurns(), {
    scope: world.scope,
    limits: { ...deps.extractor.limits, maxTurns },
  })) {
    const outcome = await formWindow(deps, window);
    world.apply(outcome.operations);
    costs.push({ turns: outcome.turns, ...outcome.usage });
  }
  return costs;
}

describe('the cost model: LLM calls and tokens per window, from the providers’ usage fields', () => {
  it('counts one extraction call per window and at most one consolidation call per extraction call', async () => {
    const memory = (text: string, when: string | null) => ({
      memories: [{ text, kind: 'user_fact', key: 'user.residence', tags: [], confidence: 0.9, turns: ['t1'], when }],
    });
    const server = await startScriptedLlm({
      rules: [
        {
          name: 'x-lisbon',
          match: 'I live in Lisbon',
          reply: { content: memory('Ana lives in Lisbon', null), usage: { input: 1000, output: 100 } },
        },
        {
          name: 'x-berlin',
          match: (r) => r.prompt.includes('durable memories') && r.prompt.includes('Berlin'),
          reply: {
            content: memory('Ana moved to Berlin last month', 'last month'),
            usage: { input: 1200, output: 120 },
          },
        },
        {
          name: 'consolidate',
          match: 'memory store consistent',
          reply: ({ prompt }) => ({
            content: {
              decisions: [
                { candidate: 'c1', action: 'SUPERSEDE', target: handleOf(prompt, 'Lisbon', 'm'), text: null },
              ],
            },
            usage: { input: 500, output: 50 },
          }),
        },
      ],
    });
    servers.push(server);
    const world = new MemoryWorld(undefined, -1);
    const model = chatFor('anthropic', server);
    const deps: FormationDeps = {
      extractor: createLlmExtractor({ model }),
      consolidator: createLlmConsolidator({ newId: world.newId }, { model }),
      neighbours: world.neighbours,
    };
    const report = summarizeCost(await run(deps, world, 20));
    expect(server.calls.map((c) => c.rule)).toEqual(['x-lisbon', 'x-berlin', 'consolidate']);
    expect(report).toMatchObject({
      turns: 40,
      windows: 2,
      extraction: { calls: 2, inputTokens: 2200, outputTokens: 220 },
      consolidation: { calls: 1, inputTokens: 500, outputTokens: 50 },
      per1000Turns: { extractionCalls: 50, consolidationCalls: 25, inputTokens: 67_500, outputTokens: 6_750 },
      extractionCallsPer10Turns: 0.5,
      consolidationCallsPerExtractionCall: 0.5,
      meetsGoals: true,
    });
    expect(world.current().map((m) => m.text)).toEqual(['Ana moved to Berlin last month (2026-02)']);
  });

  it('reports a run missing the goals, and calls that reported no usage', () => {
    const call = { ...NO_USAGE, calls: 1, inputTokens: 10, outputTokens: 2 };
    const report = summarizeCost([
      { turns: 5, extraction: call, consolidation: { ...call, calls: 2 } },
      { turns: 5, extraction: { ...NO_USAGE, calls: 1, callsWithoutUsage: 1 }, consolidation: NO_USAGE },
    ]);
    expect(report.extractionCallsPer10Turns).toBe(2);
    expect(report.consolidationCallsPerExtractionCall).toBe(1);
    expect(report.extraction.callsWithoutUsage).toBe(1);
    expect(report.meetsGoals).toBe(false);
  });

  it('runs without any LLM: rule-based extraction, deterministic consolidation, zero calls', async () => {
    const world = new MemoryWorld(undefined, -1);
    const deps: FormationDeps = {
      extractor: createRuleExtractor(),
      consolidator: createRuleConsolidator({ newId: world.newId }),
      neighbours: world.neighbours,
    };
    const report = summarizeCost(await run(deps, world, 20));
    expect(report).toMatchObject({
      turns: 40,
      extractionCallsPer10Turns: 0,
      consolidationCallsPerExtractionCall: null,
      consolidationCallsPerWindow: 0,
      meetsGoals: true,
    });
    expect(world.current().map((m) => [m.text, m.metadata])).toEqual([
      [
        'Ana moved to Berlin last month (2026-02)',
        {
          formation: {
            extractor: 'rule-based@r1',
            method: 'rule',
            kind: 'user_fact',
            confidence: 0.6,
            when: '2026-02',
          },
          speaker: 'Ana',
        },
      ],
    ]);
    expect(world.validAt('2025-01-01T00:00:00.000Z')).toEqual(['Ana lives in Lisbon']);
  });
});
