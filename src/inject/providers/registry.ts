import type { ProviderAdapter } from './provider-adapter.js';
import type { ProviderName } from '../../model/provider-name.js';
import { aiSdkPrompt } from './ai-sdk-prompt.js';
import { anthropicMessages } from './anthropic-messages.js';
import { bedrockConverse } from './bedrock-converse.js';
import { bedrockInvokeAnthropic } from './bedrock-invoke-anthropic.js';
import { googleGenai } from './google-genai.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';

/** Every supported request shape, by name. */
export const providers: Readonly<Record<ProviderName, ProviderAdapter>> = Object.freeze({
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  'anthropic-messages': anthropicMessages,
  'bedrock-converse': bedrockConverse,
  'bedrock-invoke-anthropic': bedrockInvokeAnthropic,
  'google-genai': googleGenai,
  'ai-sdk-prompt': aiSdkPrompt,
});

/** The last user message's text in a request of the given shape, or null. Never throws. */
export function extractQuery(shape: ProviderName, request: unknown): string | null {
  try {
    return providers[shape].extractQuery(request);
  } catch {
    return null;
  }
}

/** A copy of the request with the block injected (the request itself when the shape is unknown). */
export function injectBlock<R>(shape: ProviderName, request: R, block: string): R {
  return providers[shape].injectBlock(request, block);
}
