import { afterEach, describe, expect, it } from 'vitest';
import { resolveChatModel } from '../../src/llm/resolve-chat-model.js';
import { isEngramError } from '../../src/model/errors.js';
import { searchConfigFromEnv } from '../../src/search/search-config-from-env.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';

const servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('resolveChatModel', () => {
  it('resolves provider:model and talks to the configured base URL', async () => {
    const server = await startLocalServer(() => ({ json: { choices: [{ message: { role: 'assistant', content: 'hi' } }] } }));
    servers.push(server);
    const model = resolveChatModel('ollama:llama3.1', { env: { ENGRAM_LLM_BASE_URL: server.url } });
    expect(model.id).toBe('ollama:llama3.1');
    expect((await model.chat({ messages: [{ role: 'user', content: 'x' }] })).text).toBe('hi');
    expect(server.requests[0]?.body).toMatchObject({ model: 'llama3.1' });
  });

  it('lists the providers on a bad spec and asks for missing keys', () => {
    const errors = ['gpt-4o', 'nope:x', 'anthropic:claude', 'openai:gpt-4o'].map((spec) => {
      try {
        resolveChatModel(spec, { env: {} });
        return undefined;
      } catch (e) {
        return e;
      }
    });
    expect(errors.every((e) => isEngramError(e, 'CONFIG_ERROR'))).toBe(true);
    expect((errors[1] as Error).message).toContain('openai, anthropic, ollama, vllm, lmstudio');
    expect((errors[2] as Error).message).toContain('ANTHROPIC_API_KEY');
    expect(resolveChatModel('anthropic:claude-haiku-4-5', { env: { ANTHROPIC_API_KEY: 'k' } }).id).toBe('anthropic:claude-haiku-4-5');
  });
});

describe('searchConfigFromEnv', () => {
  it('builds the LLM, web providers and http reranker that are configured, nothing else', () => {
    expect(searchConfigFromEnv({})).toEqual({});
    const config = searchConfigFromEnv({
      ENGRAM_LLM: 'vllm:qwen',
      ENGRAM_SEARXNG_URL: 'http://127.0.0.1:1',
      BRAVE_API_KEY: 'b',
      ENGRAM_RERANK_URL: 'http://127.0.0.1:2/rerank',
      ENGRAM_RERANK_API: 'tei',
    });
    expect(config.llm?.id).toBe('vllm:qwen');
    expect(config.web?.map((w) => w.name)).toEqual(['searxng', 'brave']);
    expect(config.rerankers?.map((r) => r.name)).toEqual(['http']);
    expect(() => searchConfigFromEnv({ ENGRAM_RERANK_URL: 'x', ENGRAM_RERANK_API: 'nope' })).toThrow(/tei, bge, jina, cohere/);
  });
});
