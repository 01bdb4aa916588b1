/**
 * Capture through formation with the official `openai` SDK wrapped around a local chat server:
 * repeated questions become one episode with a count, the block shows the stored allergy instead
 * of copies of the question, captured turns are batched into one extraction window and become a
 * fact a later call is told about, and a failing formation LLM never touches the wrapped call.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import type { InjectEvent } from '../../src/inject/inject-event.js';
import { wrapOpenAI } from '../../src/inject/wrappers/openai.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { chatFor, handleOf } from '../formation/support/chat-for.js';
import { CONSOLIDATE, EXTRACT, testFormation } from '../formation/support/formation-fixture.js';
import { startScriptedLlm, type ScriptedLlmServer, type ScriptRule } from '../formation/support/scripted-llm-server.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { RecordingServer } from './helpers/recording-server.js';
import { waitFor } from './helpers/wait-for.js';

const REPLY = 'How about a vegetable curry?';
const scope = { tenant: 'acme', user: 'alice', session: 'chat-1' };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setUp(rules: ScriptRule[]) {
  const chat = new RecordingServer(() => ({
    body: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-x',
      choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }],
    }),
  }));
  await chat.start();
  const llm: ScriptedLlmServer = await startScriptedLlm({ rules });
  const engram = await Engram.open({
    store: createSqliteStore({ path: ':memory:' }),
    embedder: new HashedEmbedder({ dim: 128 }),
    env: {},
    formation: testFormation(chatFor('openai', llm, { retries: 0, timeoutMs: 1_000 })),
  });
  cleanup.push(
    () => chat.close(),
    () => llm.close(),
    () => engram.close(),
  );
  const events: InjectEvent[] = [];
  const client = wrapOpenAI(new OpenAI({ apiKey: 'k', baseURL: chat.url, maxRetries: 0 }), {
    recaller: engram,
    scope: { tenant: 'acme', user: 'alice' },
    capture: { writer: engram, scope },
    recall: { threshold: -1 },
    budgetMs: 5_000,
    onEvent: (e) => events.push(e),
  });
  const ask = async (content: string) => {
    const before = events.filter((e) => e.type === 'captured' || e.type === 'capture-failed').length;
    const answer = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content }] });
    await waitFor(() => events.filter((e) => e.type === 'captured' || e.type === 'capture-failed').length > before);
    return answer;
  };
  return { chat, llm, engram, events, ask };
}

const systemOf = (chat: RecordingServer): string =>
  (chat.lastJson() as { messages: Array<{ role: string; content: string }> }).messages[0]?.content ?? '';

describe('capture through formation (openai SDK, SQLite)', () => {
  it('eight identical questions are one episode; the block shows the allergy, never the question echoed back', async () => {
    const { chat, llm, engram, ask } = await setUp([
      { name: 'extract', match: EXTRACT, reply: { content: { memories: [] } } },
      { name: 'consolidate', match: CONSOLIDATE, reply: { content: { decisions: [] } } },
    ]);
    await engram.add(
      { text: 'Alice is allergic to peanuts', type: 'UserMemory' },
      { scope: { tenant: 'acme', user: 'alice' } },
    );
    for (let i = 0; i < 8; i++) expect((await ask('What can I cook tonight?')).choices[0]?.message.content).toBe(REPLY);
    const episodes = await engram.list({ scope, types: ['WorkingMemory'], statuses: ['activated', 'archived'] });
    expect(episodes.items.map((m) => m.text).sort()).toEqual([REPLY, 'What can I cook tonight?']);
    const system = systemOf(chat);
    expect(system).toContain('Alice is allergic to peanuts');
    expect(system).not.toContain('- What can I cook tonight?');
    // Sixteen captured turns, two distinct: one window, one extraction call.
    await engram.idle({ timeoutMs: 10_000 });
    expect(llm.calls.map((c) => c.rule)).toEqual(['extract']);
  });

  it('captured turns become a fact that a later call is given, valid from when it was said', async () => {
    const { chat, engram, ask } = await setUp([
      {
        name: 'extract',
        match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('vegetarian'),
        reply: ({ prompt }) => ({
          content: {
            memories: [
              {
                text: 'Alice is vegetarian',
                kind: 'user_fact',
                key: 'user.diet',
                tags: [],
                confidence: 0.9,
                turns: [handleOf(prompt, 'vegetarian', 't')],
                when: null,
              },
            ],
          },
        }),
      },
      { name: 'extract-other', match: EXTRACT, reply: { content: { memories: [] } } },
      { name: 'consolidate', match: CONSOLIDATE, reply: { content: { decisions: [] } } },
    ]);
    await ask("I'm vegetarian since this spring, any dinner idea?");
    await engram.idle({ timeoutMs: 10_000 });
    await ask('Recipe for tonight, please.');
    expect(systemOf(chat)).toContain('Alice is vegetarian');
    const [fact] = (await engram.list({ scope: { tenant: 'acme', user: 'alice' }, types: ['UserMemory'] })).items;
    expect(fact).toMatchObject({ text: 'Alice is vegetarian', scope: { tenant: 'acme', user: 'alice' } });
    expect(fact?.scope.session).toBeUndefined();
  });

  it('a failing formation LLM never delays or fails the wrapped call; the window is retried in the background', async () => {
    const { engram, ask, events } = await setUp([
      { name: 'down', match: EXTRACT, times: 3, reply: { fault: 'server-error', status: 503 } },
      { name: 'extract', match: EXTRACT, reply: { content: { memories: [] } } },
    ]);
    const answer = await ask('Hello there');
    expect(answer.choices[0]?.message.content).toBe(REPLY);
    expect(events.some((e) => e.type === 'capture-failed')).toBe(false);
    await engram.idle({ timeoutMs: 10_000 });
    const [job] = (await engram.formationJobs({ scope })).items;
    expect(job).toMatchObject({ state: 'succeeded' });
    expect(job?.attempts).toBeGreaterThan(1);
  });
});
