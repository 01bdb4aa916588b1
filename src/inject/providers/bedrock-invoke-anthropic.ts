import type { ProviderAdapter } from './provider-adapter.js';
import { isRecord } from './json-guards.js';
import {
  anthropicExtractQuery,
  anthropicInjectBlock,
  anthropicReplyText,
  anthropicStreamDeltaText,
} from './anthropic-messages.js';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function bytesOf(value: unknown): Uint8Array | null {
  return value instanceof Uint8Array ? value : null;
}

/** Parses an InvokeModel body (string or bytes) when it is an Anthropic Messages body. */
function parseAnthropicBody(body: unknown): Record<string, unknown> | null {
  let text: string;
  if (typeof body === 'string') text = body;
  else {
    const bytes = bytesOf(body);
    if (bytes === null) return null;
    text = decoder.decode(bytes);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isRecord(parsed) || !Array.isArray(parsed['messages'])) return null;
    return typeof parsed['anthropic_version'] === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Bedrock InvokeModel / InvokeModelWithResponseStream with an Anthropic body (a JSON body that
 * has `anthropic_version` and `messages`). The body keeps its type (string stays string, bytes
 * stay bytes) and its Anthropic shape, `anthropic_version` included; the block is injected as in
 * {@link anthropicInjectBlock}. Other bodies (Titan, Llama, …) are left alone.
 */
export const bedrockInvokeAnthropic: ProviderAdapter = {
  name: 'bedrock-invoke-anthropic',
  extractQuery(request) {
    if (!isRecord(request)) return null;
    return anthropicExtractQuery(parseAnthropicBody(request['body']));
  },
  injectBlock<R>(request: R, block: string): R {
    if (!isRecord(request)) return request;
    const body = parseAnthropicBody(request['body']);
    if (body === null) return request;
    const json = JSON.stringify(anthropicInjectBlock(body, block));
    return { ...request, body: typeof request['body'] === 'string' ? json : encoder.encode(json) } as R;
  },
  replyText(response) {
    if (!isRecord(response)) return null;
    const bytes = bytesOf(response['body']);
    if (bytes === null) return null;
    try {
      return anthropicReplyText(JSON.parse(decoder.decode(bytes)));
    } catch {
      return null;
    }
  },
  streamDeltaText(chunk) {
    if (!isRecord(chunk) || !isRecord(chunk['chunk'])) return null;
    const bytes = bytesOf(chunk['chunk']['bytes']);
    if (bytes === null) return null;
    try {
      return anthropicStreamDeltaText(JSON.parse(decoder.decode(bytes)));
    } catch {
      return null;
    }
  },
};
