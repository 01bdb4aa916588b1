import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicChat } from '../../src/llm/anthropic-chat.js';
import { createOpenAICompatibleChat } from '../../src/llm/openai-compatible-chat.js';
import { expectCode } from '../support/expect-code.js';
import { startScriptedLlm, type ScriptedLlmServer, type ScriptRule } from './support/scripted-llm-server.js';

const servers: ScriptedLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(rules: ScriptRule[], latencyMs = 0): Promise<ScriptedLlmServer> {
  const server = await startScriptedLlm({ rules, latencyMs, hangMs: 2_000 });
  servers.push(server);
  return server;
}

describe('the scripted LLM server speaks the real wire formats', () => {
  it('answers the official openai SDK, in JSON mode, with usage', async () => {
    const server = await serve([
      {
        name: 'capital',
        match: /capital of France/,
        reply: { content: { answer: 'Paris' }, usage: { input: 12, output: 5 } },
      },
    ]);
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseUrl, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'The capital of France? Answer in JSON.' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ answer: 'Paris' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    expect(server.calls.map((c) => [c.rule, c.status])).toEqual([['capital', 200]]);
  });

  it('answers the official Anthropic SDK, and the SDK honours its 429 Retry-After', async () => {
    const server = await serve([
      { name: 'busy', match: 'hello', times: 1, reply: { fault: 'rate-limit', retryAfterSeconds: 0 } },
      { name: 'hello', match: 'hello', reply: { content: 'bonjour' } },
    ]);
    const client = new Anthropic({ apiKey: 'ak-test', baseURL: server.anthropicBaseUrl, maxRetries: 2 });
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'bonjour' }]);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(server.calls.map((c) => [c.rule, c.status])).toEqual([
      ['busy', 429],
      ['hello', 200],
    ]);
    expect(server.calls[1]?.request.system).toBe('be brief');
  });

  it('validates requests as the real APIs do', async () => {
    const server = await serve([{ name: 'any', match: () => true, reply: { content: '{}' } }]);
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const noJsonWord = await post('/v1/chat/completions', {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_object' },
    });
    expect(noJsonWord.status).toBe(400);
    expect(((await noJsonWord.json()) as { error: { message: string } }).error.message).toMatch(
      /must contain the word 'json'/,
    );
    expect(
      (await post('/v1/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })).status,
    ).toBe(401);
    const auth = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
    const noMax = await post('/v1/messages', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, auth);
    expect(noMax.status).toBe(400);
    expect(await noMax.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(
      (
        await post(
          '/v1/messages',
          { model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: 'hi' }] },
          auth,
        )
      ).status,
    ).toBe(400);
    expect(
      (await post('/v1/messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, auth))
        .status,
    ).toBe(200);
  });

  it('scripts faults per rule for the project’s own clients: 500, hang (timeout), broken body, unmatched', async () => {
    const server = await serve([
      { name: 'boom', match: 'boom', reply: { fault: 'server-error', status: 503 } },
      { name: 'slow', match: 'slow', reply: { fault: 'hang' } },
      { name: 'broken', match: 'broken', reply: { fault: 'broken-body' } },
      { name: 'nth', match: 'count', reply: (_r, nth) => ({ content: `call ${nth}` }) },
    ]);
    const chat = createOpenAICompatibleChat({
      baseUrl: server.openaiBaseUrl,
      model: 'm',
      retries: 1,
      retryBaseMs: 1,
      retryMaxMs: 2,
      timeoutMs: 200,
    });
    const ask = (content: string) => chat.chat({ messages: [{ role: 'user', content }] });
    const boom = await expectCode(ask('boom'), 'LLM_ERROR');
    expect(boom.details.status).toBe(503);
    expect(server.calls.filter((c) => c.rule === 'boom')).toHaveLength(2); // the client retried once
    await expectCode(ask('slow'), 'TIMEOUT');
    await expectCode(ask('broken'), 'LLM_ERROR');
    expect((await ask('count')).text).toBe('call 0');
    expect((await ask('count')).text).toBe('call 1');
    await expectCode(ask('nobody scripted this'), 'LLM_ERROR');
    expect(server.unmatched()).toHaveLength(2); // first attempt and the client's retry
  });

  it('adds the configured latency', async () => {
    const server = await serve([{ name: 'x', match: () => true, reply: { content: 'ok' } }], 150);
    const chat = createAnthropicChat({ baseUrl: server.anthropicBaseUrl, apiKey: 'k', model: 'c' });
    const started = performance.now();
    expect((await chat.chat({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('ok');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });
});
