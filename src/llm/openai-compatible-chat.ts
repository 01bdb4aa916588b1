import { EngramError } from '../model/errors.js';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { asObject, postJson, type HttpClientOptions } from './http-json.js';

/** Options of {@link createOpenAICompatibleChat}. */
export interface OpenAICompatibleChatOptions extends HttpClientOptions {
  /** Base URL including the version path, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …` when given (Ollama and vLLM need none). */
  apiKey?: string | undefined;
  /** Extra headers (organisation, project). */
  headers?: Record<string, string> | undefined;
  /** Id prefix. @default 'openai' */
  provider?: string | undefined;
}

/**
 * A chat model over the OpenAI-compatible `POST {baseUrl}/chat/completions` API (OpenAI, Ollama,
 * vLLM, LM Studio, llama.cpp server). JSON mode sends `response_format: {type: 'json_object'}`.
 */
export function createOpenAICompatibleChat(options: OpenAICompatibleChatOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const service = `${options.provider ?? 'openai'} chat`;
  return {
    id: `${options.provider ?? 'openai'}:${options.model}`,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const body: Record<string, unknown> = {
        model: options.model,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        temperature: request.temperature ?? 0,
      };
      if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
      if (request.json) body.response_format = { type: 'json_object' };
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      const json = asObject(await postJson({ ...options, url, headers, body, service, signal: request.signal }));
      const choices = json?.choices;
      const first = Array.isArray(choices) ? asObject(choices[0]) : undefined;
      const message = asObject(first?.message);
      const content = message?.content;
      if (typeof content !== 'string') {
        throw new EngramError('LLM_ERROR', `${service} answer has no choices[0].message.content`, { details: { service } });
      }
      const usage = asObject(json?.usage);
      return {
        text: content,
        model: typeof json?.model === 'string' ? json.model : undefined,
        usage:
          usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
            ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
            : undefined,
      };
    },
  };
}
