import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicChat } from '../../src/llm/anthropic-chat.js';
import { deepSearch } from '../../src/search/reason/deep-search.js';
import { parseSelectedIds, selectMemories } from '../../src/search/reason/memory-reasoner.js';
import { REWRITE_PROMPT } from '../../src/search/reason/memory-rewrite.js';
import { STAGE_PROMPT } from '../../src/search/reason/stage-judge.js';
import { startLocalServer, type LocalHttpServer, type ReceivedRequest } from '../support/local-http-server.js';
import { memory } from '../support/memory-fixture.js';

const servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const A = '3f2b8c1e-9d4a-4c1b-8e2f-0a1b2c3d4e5f';
const B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

async function anthropic(route: (system: string) => string) {
  const server = await startLocalServer((req: ReceivedRequest) => {
    const system = (req.body as { system?: string }).system ?? '';
    return { json: { type: 'message', role: 'assistant', content: [{ type: 'text', text: route(system) }] } };
  });
  servers.push(server);
  return { server, llm: createAnthropicChat({ baseUrl: server.url, apiKey: 'k', model: 'c', retries: 0 }) };
}

describe('reasoner', () => {
  it('parses selected_ids, and falls back to UUIDs in free text', () => {
    const known = new Set([A, B, 'plain-id']);
    expect(parseSelectedIds('{"selected_ids": ["plain-id", "unknown"]}', known)).toEqual(['plain-id']);
    expect(parseSelectedIds(`I would use ${B.toUpperCase()} and then ${A}.`, known)).toEqual([B, A]);
    expect(parseSelectedIds('none of them', known)).toEqual([]);
  });

  it('asks an Anthropic model with [id] key: memory lines', async () => {
    const { llm, server } = await anthropic(() => `Selected: ${A}`);
    const ids = await selectMemories(llm, 'q?', [memory(A, 'first', { key: 'k1' }), memory(B, 'second')]);
    expect(ids).toEqual([A]);
    const content = (server.requests[0]?.body as { messages: Array<{ content: string }> }).messages[0]?.content ?? '';
    expect(content).toContain(`[${A}] k1: first\n[${B}] LongTermMemory: second`);
  });
});

describe('deepSearch', () => {
  it('stops at the first stage that can answer, merges stage finds, rewrites, and never fails on a bad rewrite', async () => {
    const { llm } = await anthropic((system) => {
      if (system.startsWith(STAGE_PROMPT)) return '{"can_answer": true, "reason": "enough", "retrieval_phrases": []}';
      if (system.startsWith(REWRITE_PROMPT)) return `{"memories": [{"id": "a", "text": "A, rewritten"}, {"id": "zzz", "text": "ignored"}]}`;
      return '{}';
    });
    const first = [{ memory: memory('a', 'A'), score: 0.5 }];
    let retrieved = 0;
    const out = await deepSearch(llm, 'q', first, async () => {
      retrieved++;
      return [];
    }, (lists) => lists.flat(), { rewrite: true });
    expect(out.stages).toEqual([{ stage: 1, canAnswer: true, phrases: [] }]);
    expect(retrieved).toBe(0);
    expect([...out.rewrites]).toEqual([['a', 'A, rewritten']]);
  });

  it('runs at most N stages and skips a failing retrieval', async () => {
    const { llm } = await anthropic(() => '{"can_answer": false, "retrieval_phrases": ["more"]}');
    let calls = 0;
    const out = await deepSearch(
      llm,
      'q',
      [],
      async (phrase, stage) => {
        calls++;
        if (stage === 1) throw new Error('store down');
        return [{ memory: memory(`m${stage}`, phrase), score: 1 }];
      },
      (lists) => lists.flat(),
      { stages: 2 },
    );
    expect(calls).toBe(2);
    expect(out.stages.map((s) => [s.stage, s.error ?? null])).toEqual([
      [1, 'store down'],
      [2, null],
    ]);
    expect(out.hits.map((h) => h.memory.id)).toEqual(['m2']);
  });
});
