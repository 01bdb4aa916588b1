import type { ProviderAdapter } from './provider-adapter.js';
import { appendText, asArray, isRecord, joinTexts, lastUserText, type JsonRecord } from './json-guards.js';

function contentText(content: unknown): string | null {
  if (typeof content === 'string') return joinTexts([content]);
  const blocks = asArray(content);
  if (blocks === null) return null;
  const texts: string[] = [];
  for (const block of blocks) {
    if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
  }
  return joinTexts(texts);
}

/** Extracts the query of an Anthropic Messages body (also the body of Bedrock InvokeModel). */
export function anthropicExtractQuery(request: unknown): string | null {
  if (!isRecord(request)) return null;
  const messages = asArray(request['messages']);
  if (messages === null) return null;
  return lastUserText(
    messages,
    (m) => m['role'] === 'user',
    (m) => contentText(m['content']),
  );
}

/** Appends the block to an Anthropic Messages body (also used for Bedrock InvokeModel bodies). */
export function anthropicInjectBlock<R>(request: R, block: string): R {
  if (!isRecord(request)) return request;
  const system = request['system'];
  if (system === undefined || system === null) return { ...request, system: block } as R;
  if (typeof system === 'string') return { ...request, system: appendText(system, block) } as R;
  const blocks = asArray(system);
  if (blocks === null) return request;
  // A new last block: every cache_control breakpoint stays on the block it was on, and the
  // cached prefix before it is byte-for-byte what the caller sent.
  return { ...request, system: [...blocks, { type: 'text', text: block }] } as R;
}

/** Assistant text of an Anthropic Messages response body. */
export function anthropicReplyText(response: unknown): string | null {
  if (!isRecord(response)) return null;
  return contentText(response['content']);
}

/** Text of one Anthropic stream event (`content_block_delta` with a `text_delta`). */
export function anthropicStreamDeltaText(chunk: unknown): string | null {
  if (!isRecord(chunk) || chunk['type'] !== 'content_block_delta') return null;
  const delta = chunk['delta'] as JsonRecord | undefined;
  if (!isRecord(delta) || delta['type'] !== 'text_delta') return null;
  return typeof delta['text'] === 'string' ? delta['text'] : null;
}

/**
 * Anthropic Messages: `system` is a string or `[{type:'text', text, cache_control?}]`. A string
 * gets the block after a blank line; an array gets a new text block at the end, so
 * cache_control breakpoints stay where they were.
 */
export const anthropicMessages: ProviderAdapter = {
  name: 'anthropic-messages',
  extractQuery: anthropicExtractQuery,
  injectBlock: anthropicInjectBlock,
  replyText: anthropicReplyText,
  streamDeltaText: anthropicStreamDeltaText,
};
