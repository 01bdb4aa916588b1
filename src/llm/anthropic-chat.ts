import { EngramError } from '../model/errors.js';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { asObject, postJson, type HttpClientOptions } from './http-json.js';

/** Options of {@link createAnthropicChat}. */
export interface AnthropicChatOptions extends HttpClientOptions {
  apiKey: string;
  model: string;
  /** @default 'https://api.anthropic.com' */
  baseUrl?: string | undefined;
  /** @default '2023-06-01' */
  anthropicVersion?: string | undefined;
  /** Used when a request gives no `maxTokens` (the API requires one). @default 1024 */
  defaultMaxTokens?: number | undefined;
}

/**
 * A chat model over Anthropic's `POST /v1/messages` (`x-api-key`, `anthropic-version`). System
 * messages become the top-level `system` string; JSON mode adds an instruction to answer with a
 * single JSON object (the answer still goes through `extractJson`).
 */
export function createAnthropicChat(options: AnthropicChatOptions): ChatModel {
  const url = `${(options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`;
  const service = 'anthropic messages';
  return {
    id: `anthropic:${options.model}`,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
      if (request.json) system.push('Answer with a single JSON object and nothing else.');
      const messages = request.messages
        .filter((m) => m.role !== 'system')
        .map((m) => ({ role: m.role, content: m.content }));
      const body: Record<string, unknown> = {
        model: options.model,
        max_tokens: request.maxTokens ?? options.defaultMaxTokens ?? 1024,
        temperature: request.temperature ?? 0,
        messages,
      };
      if (system.length > 0) body.system = system.join('\n\n');
      const headers = { 'x-api-key': options.apiKey, 'anthropic-version': options.anthropicVersion ?? '2023-06-01' };
      const json = asObject(await postJson({ ...options, url, headers, body, service, signal: request.signal }));
      const content = json?.content;
      if (!Array.isArray(content)) {
        throw new EngramError('LLM_ERROR', `${service} answer has no content array`, { details: { service } });
      }
      const text = content
        .map((block) => asObject(block))
        .filter((block) => block?.type === 'text' && typeof block.text === 'string')
        .map((block) => block?.text as string)
        .join('');
      const usage = asObject(json?.usage);
      return {
        text,
        model: typeof json?.model === 'string' ? json.model : undefined,
        usage:
          usage && typeof usage.input_tokens === 'number' && typeof usage.output_tokens === 'number'
            ? { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens }
            : undefined,
      };
    },
  };
}
