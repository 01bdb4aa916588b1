import { afterEach, describe, expect, it } from 'vitest';
import { formWindow, type FormationDeps } from '../../src/formation/form-window.js';
import { usageOfFailure } from '../../src/formation/llm-usage.js';
import { createLlmConsolidator } from '../../src/formation/llm-consolidator.js';
import { createLlmExtractor } from '../../src/formation/llm-extractor.js';
import { nextAttempt } from '../../src/formation/retry-policy.js';
import { createRuleExtractor } from '../../src/formation/rule-extractor.js';
import { windowKey } from '../../src/formation/window-key.js';
import type { ExtractionWindow } from '../../src/formation/extraction-window.js';
import { isEngramError } from '../../src/model/errors.js';
import { chatFor, handleOf, PROVIDERS } from './support/chat-for.js';
import { conversation } from './support/conversation.js';
import { MemoryWorld } from './support/memory-world.js';
import { startScriptedLlm, type ScriptedLlmServer } from './support/scripted-llm-server.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const w1 = conversation([['user', 'I live in Lisbon.']], { at: '2024-05-10T09:00:00.000Z', prefix: 'a-' });
const w2 = conversation([['user', 'I moved to Porto in 2025.']], { at: '2025-03-01T09:00:00.000Z', prefix: 'b-' });
const w3 = conversation([['user', 'I moved to Berlin last month.']], { at: '2026-03-04T10:00:00.000Z', prefix: 'c-' });

const memories = (text: string, when: string | null) => ({
  content: {
    memories: [{ text, kind: 'user_fact', key: 'user.residence', tags: [], confidence: 0.9, turns: ['t1'], when }],
  },
});

/**
 * What a queue worker does with a window, reduced to the rules that matter here: one outcome per
 * idempotency key, applied whole or not at all, failures classified by the retry policy.
 */
function runner(world: MemoryWorld, deps: FormationDeps) {
  const done = new Set<string>();
  return async (window: ExtractionWindow): Promise<string> => {
    const key = windowKey(window, deps.extractor);
    if (done.has(key)) return 'already formed';
    try {
      const outcome = await formWindow(deps, window);
      world.apply(outcome.operations);
      done.add(key);
      return `formed: ${outcome.consolidation.decisions.map((d) => `${d.action}/${d.decidedBy}`).join(', ')}`;
    } catch (error) {
      const decision = nextAttempt(1, error, new Date('2026-03-04T12:00:00.000Z'));
      return `${isEngramError(error) ? error.code : 'unknown'} → ${decision.state}`;
    }
  };
}

describe.each(PROVIDERS)('formation when the LLM fails mid-run, over %s', (provider) => {
  it('a failed window is retried later and forms once; finished windows are never formed again', async () => {
    const server = await startScriptedLlm({
      rules: [
        { name: 'lisbon', match: 'I live in Lisbon', reply: memories('Ana lives in Lisbon', null) },
        { name: 'porto-down', match: 'moved to Porto', times: 3, reply: { fault: 'server-error', status: 503 } },
        {
          name: 'porto',
          match: (r) => r.prompt.includes('durable memories') && r.prompt.includes('moved to Porto'),
          reply: memories('Ana moved to Porto in 2025', 'in 2025'),
        },
        {
          name: 'berlin',
          match: (r) => r.prompt.includes('durable memories') && r.prompt.includes('moved to Berlin'),
          reply: memories('Ana moved to Berlin last month', 'last month'),
        },
        // The consolidation of the Berlin window fails: the rules decide instead.
        {
          name: 'consolidate-down',
          match: (r) =>
            r.prompt.includes('memory store consistent') && r.prompt.includes('Berlin') && !r.prompt.includes('Porto'),
          reply: { fault: 'server-error' },
        },
        {
          name: 'consolidate-porto',
          match: (r) => r.prompt.includes('memory store consistent') && r.prompt.includes('Porto'),
          reply: ({ prompt }) => ({
            content: {
              decisions: [
                { candidate: 'c1', action: 'SUPERSEDE', target: handleOf(prompt, 'Berlin', 'm'), text: null },
              ],
            },
          }),
        },
      ],
    });
    servers.push(server);
    const world = new MemoryWorld(undefined, -1);
    const model = chatFor(provider, server);
    const deps: FormationDeps = {
      extractor: createLlmExtractor({ model }),
      consolidator: createLlmConsolidator({ newId: world.newId }, { model }),
      neighbours: world.neighbours,
    };
    const run = runner(world, deps);

    expect(await run(w1)).toBe('formed: ADD/rules');
    expect(await run(w2)).toBe('LLM_ERROR → retrying');
    expect(world.state.size).toBe(1); // nothing of the failed window was applied
    expect(await run(w3)).toBe('formed: SUPERSEDE/rules');
    expect(await run(w2)).toBe('formed: SUPERSEDE/llm'); // the retry, after Berlin was formed
    expect(await run(w1)).toBe('already formed'); // a restart replays w1: no duplicate
    expect(server.calls.filter((c) => c.rule === 'lisbon')).toHaveLength(1);

    // Porto was said before Berlin but formed after it: it is history, not the current value.
    expect(world.current().map((m) => m.text)).toEqual(['Ana moved to Berlin last month (2026-02)']);
    expect(world.validAt('2025-06-01T00:00:00.000Z')).toContain('Ana moved to Porto in 2025');
    const porto = [...world.state.values()].find((m) => m.text.includes('Porto'));
    expect(porto).toMatchObject({ validFrom: '2025-01-01T00:00:00.000Z', validTo: '2026-02-01T00:00:00.000Z' });
    expect([...world.state.values()].map((m) => m.text).sort()).toEqual([
      'Ana lives in Lisbon',
      'Ana moved to Berlin last month (2026-02)',
      'Ana moved to Porto in 2025',
    ]);
  });

  it('an unusable extraction answer is a retried job whose paid tokens are still counted', async () => {
    const server = await startScriptedLlm({
      rules: [
        {
          name: 'prose',
          match: () => true,
          reply: { content: 'Ana lives in Lisbon.', usage: { input: 80, output: 6 } },
        },
      ],
    });
    servers.push(server);
    const world = new MemoryWorld();
    const deps: FormationDeps = {
      extractor: createLlmExtractor({ model: chatFor(provider, server) }),
      consolidator: createLlmConsolidator({ newId: world.newId }, { model: chatFor(provider, server) }),
      neighbours: world.neighbours,
    };
    const error = await formWindow(deps, w1).catch((e: unknown) => e);
    expect(isEngramError(error, 'LLM_ERROR') && error.details.reason).toBe('invalid-json');
    expect(nextAttempt(1, error, new Date()).state).toBe('retrying');
    expect(usageOfFailure(error)).toMatchObject({ calls: 1, inputTokens: 80, outputTokens: 6 });
    expect(usageOfFailure(new Error('socket hang up'))).toMatchObject({ calls: 0, failedCalls: 1 });
  });
});

describe('a new extractor version forms the same turns again', () => {
  it('gets a different idempotency key', () => {
    const rules = createRuleExtractor();
    expect(windowKey(w1, rules)).not.toBe(windowKey(w1, { name: 'llm', version: 'x1+openai:gpt-test' }));
    expect(windowKey(w1, rules)).toBe(windowKey(structuredClone(w1), createRuleExtractor()));
  });
});
