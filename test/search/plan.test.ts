import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleChat } from '../../src/llm/openai-compatible-chat.js';
import { decomposeQuery } from '../../src/search/plan/decompose-query.js';
import { planFast } from '../../src/search/plan/fast-plan.js';
import { planFine } from '../../src/search/plan/fine-plan.js';
import { embedQueryTexts, queryTexts } from '../../src/search/plan/query-vectors.js';
import { createHashEmbedder } from '../support/hash-embedder.js';
import { startLocalServer, type CannedReply, type LocalHttpServer } from '../support/local-http-server.js';

const servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function llmAnswering(...contents: Array<string | CannedReply>) {
  const server = await startLocalServer((_r, i) => {
    const c = contents[Math.min(i, contents.length - 1)] as string | CannedReply;
    return typeof c === 'string' ? { json: { choices: [{ message: { role: 'assistant', content: c } }] } } : c;
  });
  servers.push(server);
  return { server, llm: createOpenAICompatibleChat({ baseUrl: server.url, model: 'planner', retries: 0, timeoutMs: 2_000 }) };
}

describe('planFast', () => {
  it('uses the query as is, with empty keys and tags', () => {
    expect(planFast('where did I park?')).toEqual({
      keys: [],
      tags: [],
      rephrasedQuery: 'where did I park?',
      memories: ['where did I park?'],
      internetSearch: false,
      goalType: 'default',
      context: '',
    });
  });

  it('fills keys and tags from the query with fastGraph', () => {
    const goal = planFast('project deadline Friday', { fastGraph: true });
    expect(goal.keys).toEqual(['project', 'deadline', 'friday']);
    expect(goal.tags).toEqual(goal.keys);
  });
});

describe('planFine', () => {
  it('turns one LLM answer into a parsed goal', async () => {
    const { server, llm } = await llmAnswering(
      'Plan:\n```json\n{"keys":["meeting"],"tags":["Work","calendar"],"rephrased_query":"What time was the Friday meeting moved to?","memories":["meeting moved to 3pm","Friday meeting time"],"internet_search":false,"goal_type":"question"}\n```',
    );
    const { goal, info } = await planFine(llm, '我周五的会议改到几点了?', { context: 'work chat' });
    expect(info).toEqual({ mode: 'fine' });
    expect(goal).toEqual({
      keys: ['meeting'],
      tags: ['work', 'calendar'],
      rephrasedQuery: 'What time was the Friday meeting moved to?',
      memories: ['meeting moved to 3pm', 'Friday meeting time'],
      internetSearch: false,
      goalType: 'question',
      context: 'work chat',
    });
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('work chat');
  });

  it('falls back to fast mode on a 500, on non-JSON and on missing expansions', async () => {
    for (const answer of [{ status: 500, json: {} }, 'I would rather not.', '{"keys":["a"]}'] as const) {
      const { llm } = await llmAnswering(answer);
      const { goal, info } = await planFine(llm, 'q1');
      expect(info.mode).toBe('fast');
      expect(info.fallback).toBeTruthy();
      expect(goal.memories).toEqual(['q1']);
    }
  });
});

describe('decomposeQuery', () => {
  it('keeps at most 3 sub-questions of a complex query', async () => {
    const { llm } = await llmAnswering('{"is_complex": true, "sub_questions": ["a?", "b?", "c?", "d?"]}');
    expect(await decomposeQuery(llm, 'abcd?')).toEqual({ questions: ['a?', 'b?', 'c?'], isComplex: true });
  });

  it('returns the query for a simple one, and on errors', async () => {
    const simple = await llmAnswering('{"is_complex": false, "sub_questions": []}');
    expect((await decomposeQuery(simple.llm, 'q')).questions).toEqual(['q']);
    const broken = await llmAnswering({ status: 400, json: {} });
    const out = await decomposeQuery(broken.llm, 'q');
    expect(out.questions).toEqual(['q']);
    expect(out.error).toMatch(/400/);
  });
});

describe('query texts', () => {
  it('dedupes rephrased + expansions + sub-questions and embeds them in one call', async () => {
    const goal = { ...planFast('alpha'), memories: ['alpha', 'beta', ' beta '] };
    const texts = queryTexts(goal, ['gamma', 'alpha']);
    expect(texts).toEqual(['alpha', 'beta', 'gamma']);
    const embedder = createHashEmbedder();
    const vectors = await embedQueryTexts(embedder, texts);
    expect(vectors).toHaveLength(3);
    expect(embedder.calls).toBe(1);
  });
});
