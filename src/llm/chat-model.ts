import type { ChatMessage } from '../model/chat-message.js';

/** What a {@link ChatModel} is asked. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Ask the provider for a JSON object (OpenAI `response_format`, a prefill hint for Anthropic). @default false */
  json?: boolean | undefined;
  /** @default provider default (Anthropic requires one: 1024) */
  maxTokens?: number | undefined;
  /** @default 0 */
  temperature?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** What a {@link ChatModel} answers. */
export interface ChatResponse {
  /** The assistant's text. */
  text: string;
  /** Model name the server reports, when it reports one. */
  model?: string | undefined;
  usage?: { inputTokens: number; outputTokens: number } | undefined;
}

/**
 * The chat contract: messages in, text out. Implementations reject with an
 * `EngramError('LLM_ERROR' | 'TIMEOUT' | 'UNAUTHORIZED', …)`; retries and timeouts live in the
 * HTTP clients, so callers simply await.
 */
export interface ChatModel {
  /** Stable id, e.g. `openai:gpt-4o-mini` or `anthropic:claude-haiku-4-5`. */
  readonly id: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
}

/** The `fetch` signature the clients need; inject your own for proxies or tests. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
