import { EngramError } from '../model/errors.js';
import { createAnthropicChat } from './anthropic-chat.js';
import type { ChatModel, FetchLike } from './chat-model.js';
import { createOpenAICompatibleChat } from './openai-compatible-chat.js';

/** Providers {@link resolveChatModel} knows, with their default base URLs. */
export const CHAT_PROVIDERS: Readonly<Record<string, { baseUrl: string; keyEnv?: string }>> = {
  openai: { baseUrl: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY' },
  anthropic: { baseUrl: 'https://api.anthropic.com', keyEnv: 'ANTHROPIC_API_KEY' },
  ollama: { baseUrl: 'http://localhost:11434/v1' },
  vllm: { baseUrl: 'http://localhost:8000/v1' },
  lmstudio: { baseUrl: 'http://localhost:1234/v1' },
};

/** Options of {@link resolveChatModel}. */
export interface ResolveChatModelOptions {
  /** Overrides the provider's base URL (env `ENGRAM_LLM_BASE_URL`). */
  baseUrl?: string | undefined;
  /** Overrides the key (env `ENGRAM_LLM_API_KEY`, then the provider's own variable). */
  apiKey?: string | undefined;
  /** @default process.env */
  env?: Record<string, string | undefined> | undefined;
  fetch?: FetchLike | undefined;
  /** @default 30000 */
  timeoutMs?: number | undefined;
}

/**
 * A chat model from a `provider:model` string, e.g. `openai:gpt-4o-mini`,
 * `anthropic:claude-haiku-4-5`, `ollama:llama3.1`. Unknown providers, a missing model or a
 * missing required key throw `CONFIG_ERROR` naming what is available.
 */
export function resolveChatModel(spec: string, options: ResolveChatModelOptions = {}): ChatModel {
  const env = options.env ?? process.env;
  const colon = spec.indexOf(':');
  const provider = colon > 0 ? spec.slice(0, colon) : '';
  const model = colon > 0 ? spec.slice(colon + 1) : '';
  const known = CHAT_PROVIDERS[provider];
  if (!known || !model) {
    throw new EngramError('CONFIG_ERROR', `LLM spec "${spec}" must be provider:model with provider one of: ${Object.keys(CHAT_PROVIDERS).join(', ')}`, {
      details: { spec, providers: Object.keys(CHAT_PROVIDERS) },
    });
  }
  const baseUrl = options.baseUrl ?? env.ENGRAM_LLM_BASE_URL ?? known.baseUrl;
  const apiKey = options.apiKey ?? env.ENGRAM_LLM_API_KEY ?? (known.keyEnv ? env[known.keyEnv] : undefined);
  const common = { fetch: options.fetch, timeoutMs: options.timeoutMs };
  if (provider === 'anthropic') {
    if (!apiKey) throw new EngramError('CONFIG_ERROR', 'anthropic needs ANTHROPIC_API_KEY (or ENGRAM_LLM_API_KEY)', { details: { spec } });
    return createAnthropicChat({ ...common, baseUrl, apiKey, model });
  }
  if (provider === 'openai' && !apiKey && baseUrl === known.baseUrl) {
    throw new EngramError('CONFIG_ERROR', 'openai needs OPENAI_API_KEY (or ENGRAM_LLM_API_KEY)', { details: { spec } });
  }
  return createOpenAICompatibleChat({ ...common, baseUrl, apiKey, model, provider });
}
