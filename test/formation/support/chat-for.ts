import { createAnthropicChat } from '../../../src/llm/anthropic-chat.js';
import type { ChatModel } from '../../../src/llm/chat-model.js';
import { createOpenAICompatibleChat } from '../../../src/llm/openai-compatible-chat.js';
import type { ScriptedLlmServer } from './scripted-llm-server.js';

export const PROVIDERS = ['openai', 'anthropic'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** The project's own chat client for `provider`, pointed at the scripted server, with fast retries. */
export function chatFor(
  provider: Provider,
  server: ScriptedLlmServer,
  options: { timeoutMs?: number; retries?: number } = {},
): ChatModel {
  const common = {
    retryBaseMs: 1,
    retryMaxMs: 20,
    timeoutMs: options.timeoutMs ?? 5_000,
    retries: options.retries ?? 2,
  };
  return provider === 'openai'
    ? createOpenAICompatibleChat({ ...common, baseUrl: server.openaiBaseUrl, model: 'gpt-test', apiKey: 'sk-test' })
    : createAnthropicChat({ ...common, baseUrl: server.anthropicBaseUrl, model: 'claude-test', apiKey: 'ak-test' });
}

/**
 * The `[handle]` the prompt shows on the first line containing `text` (e.g. `m2` for an existing
 * memory), optionally only among handles starting with `kind`.
 */
export function handleOf(prompt: string, text: string, kind: 'm' | 'c' | 't' | '' = ''): string {
  const pattern = new RegExp(`\\[(${kind || '[a-z]'}\\d+)\\]`);
  const line = prompt.split('\n').find((l) => l.includes(text) && pattern.test(l));
  const handle = line ? pattern.exec(line)?.[1] : undefined;
  if (!handle) throw new Error(`no handle for "${text}" in the prompt`);
  return handle;
}
