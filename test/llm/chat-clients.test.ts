import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicChat } from '../../src/llm/anthropic-chat.js';
import { chatJson } from '../../src/llm/chat-json.js';
import { createOpenAICompatibleChat } from '../../src/llm/openai-compatible-chat.js';
import { isEngramError } from '../../src/model/errors.js';
import { startLocalServer, type CannedReply, type LocalHttpServer } from '../support/local-http-server.js';

const servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(replies: CannedReply[]): Promise<LocalHttpServer> {
  const server = await startLocalServer((_req, i) => replies[Math.min(i, replies.length - 1)] as CannedReply);
  servers.push(server);
  return server;
}

function openaiReply(content: string): CannedReply {
  return {
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
    },
  };
}

function anthropicReply(text: string): CannedReply {
  return {
    json: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 9, output_tokens: 4 },
    },
  };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('OpenAI-compatible chat', () => {
  it('speaks POST /chat/completions with bearer auth and JSON mode', async () => {
    const server = await serve([openaiReply('hello')]);
    const model = createOpenAICompatibleChat({ baseUrl: `${server.url}/v1/`, model: 'gpt-test', apiKey: 'sk-1' });
    const answer = await model.chat({ messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }], json: true });
    expect(answer).toEqual({ text: 'hello', model: 'gpt-test', usage: { inputTokens: 11, outputTokens: 3 } });
    const req = server.requests[0];
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe('Bearer sk-1');
    expect(req?.body).toMatchObject({
      model: 'gpt-test',
      messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }],
      response_format: { type: 'json_object' },
    });
    expect(model.id).toBe('openai:gpt-test');
  });

  it('retries 429 then succeeds', async () => {
    const server = await serve([{ status: 429, json: { error: { message: 'rate limited' } } }, openaiReply('ok')]);
    const model = createOpenAICompatibleChat({ baseUrl: server.url, model: 'm', retryBaseMs: 1, retryMaxMs: 5 });
    expect((await model.chat({ messages: [{ role: 'user', content: 'x' }] })).text).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  it('waits the Retry-After a 429 gives (capped by retryMaxMs) instead of the backoff', async () => {
    const server = await serve([{ status: 429, json: {}, headers: { 'retry-after': '1' } }, openaiReply('ok')]);
    const model = createOpenAICompatibleChat({ baseUrl: server.url, model: 'm', retryBaseMs: 1, retryMaxMs: 400 });
    const started = Date.now();
    expect((await model.chat({ messages: [{ role: 'user', content: 'x' }] })).text).toBe('ok');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(350);
    expect(waited).toBeLessThan(1_000);
  });

  it('gives up on persistent 500 after the configured retries, with a retryable LLM_ERROR', async () => {
    const server = await serve([{ status: 500, json: { error: 'boom' } }]);
    const model = createOpenAICompatibleChat({ baseUrl: server.url, model: 'm', retries: 2, retryBaseMs: 1, retryMaxMs: 5 });
    const error = await caught(model.chat({ messages: [{ role: 'user', content: 'x' }] }));
    expect(isEngramError(error, 'LLM_ERROR')).toBe(true);
    expect(isEngramError(error) && error.details.status).toBe(500);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry 400 and maps 401 to UNAUTHORIZED', async () => {
    const bad = await serve([{ status: 400, json: { error: 'bad' } }]);
    const m1 = createOpenAICompatibleChat({ baseUrl: bad.url, model: 'm', retryBaseMs: 1 });
    expect(isEngramError(await caught(m1.chat({ messages: [] })), 'LLM_ERROR')).toBe(true);
    expect(bad.requests).toHaveLength(1);
    const auth = await serve([{ status: 401, json: { error: 'key' } }]);
    const m2 = createOpenAICompatibleChat({ baseUrl: auth.url, model: 'm', retryBaseMs: 1 });
    expect(isEngramError(await caught(m2.chat({ messages: [] })), 'UNAUTHORIZED')).toBe(true);
    expect(auth.requests).toHaveLength(1);
  });

  it('times out a slow server with TIMEOUT', async () => {
    const server = await serve([{ ...openaiReply('late'), delayMs: 2_000 }]);
    const model = createOpenAICompatibleChat({ baseUrl: server.url, model: 'm', timeoutMs: 100, retries: 0 });
    const started = Date.now();
    const error = await caught(model.chat({ messages: [{ role: 'user', content: 'x' }] }));
    expect(isEngramError(error, 'TIMEOUT')).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('chatJson extracts fenced JSON from the answer', async () => {
    const server = await serve([openaiReply('Here you go:\n```json\n{"is_complex": false}\n```\nDone.')]);
    const model = createOpenAICompatibleChat({ baseUrl: server.url, model: 'm' });
    expect(await chatJson(model, { messages: [{ role: 'user', content: 'q' }] })).toEqual({ is_complex: false });
  });
});

describe('Anthropic chat', () => {
  it('speaks POST /v1/messages with x-api-key, anthropic-version and a top-level system', async () => {
    const server = await serve([anthropicReply('bonjour')]);
    const model = createAnthropicChat({ baseUrl: server.url, apiKey: 'ak', model: 'claude-test' });
    const answer = await model.chat({ messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }] });
    expect(answer).toEqual({ text: 'bonjour', model: 'claude-test', usage: { inputTokens: 9, outputTokens: 4 } });
    const req = server.requests[0];
    expect(req?.url).toBe('/v1/messages');
    expect(req?.headers['x-api-key']).toBe('ak');
    expect(req?.headers['anthropic-version']).toBe('2023-06-01');
    expect(req?.body).toMatchObject({ model: 'claude-test', max_tokens: 1024, system: 'be brief', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('retries 529/503 then succeeds, and extracts JSON with trailing prose', async () => {
    const server = await serve([{ status: 529, json: { type: 'error' } }, { status: 503, json: {} }, anthropicReply('{"selected_ids": ["m1"]} I picked one.')]);
    const model = createAnthropicChat({ baseUrl: server.url, apiKey: 'k', model: 'c', retryBaseMs: 1, retryMaxMs: 5 });
    expect(await chatJson(model, { messages: [{ role: 'user', content: 'pick' }] })).toEqual({ selected_ids: ['m1'] });
    expect(server.requests).toHaveLength(3);
  });

  it('times out and reports TIMEOUT', async () => {
    const server = await serve([{ ...anthropicReply('late'), delayMs: 2_000 }]);
    const model = createAnthropicChat({ baseUrl: server.url, apiKey: 'k', model: 'c', timeoutMs: 100, retries: 0 });
    expect(isEngramError(await caught(model.chat({ messages: [{ role: 'user', content: 'x' }] })), 'TIMEOUT')).toBe(true);
  });
});
