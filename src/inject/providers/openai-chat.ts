import type { ProviderAdapter } from './provider-adapter.js';
import { appendText, asArray, isRecord, joinTexts, lastUserText, type JsonRecord } from './json-guards.js';

function partsText(content: unknown, textType: string): string | null {
  if (typeof content === 'string') return joinTexts([content]);
  const parts = asArray(content);
  if (parts === null) return null;
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && part['type'] === textType && typeof part['text'] === 'string') texts.push(part['text']);
  }
  return joinTexts(texts);
}

/** Appends `block` to a `content` that is a string, a part array, or empty. Null when unknown. */
function appendToContent(content: unknown, block: string, textType: string): unknown {
  if (content === undefined || content === null) return block;
  if (typeof content === 'string') return appendText(content, block);
  const parts = asArray(content);
  if (parts !== null) return [...parts, { type: textType, text: block }];
  return null;
}

/**
 * OpenAI Chat Completions: `messages[]` with roles developer / system / user / assistant / tool.
 * The block is appended to the first system or developer message (string content: after a
 * blank line; part array: as a new text part at the end); without one, a system message is
 * inserted first.
 */
export const openaiChat: ProviderAdapter = {
  name: 'openai-chat',
  extractQuery(request) {
    if (!isRecord(request)) return null;
    const messages = asArray(request['messages']);
    if (messages === null) return null;
    return lastUserText(
      messages,
      (m) => m['role'] === 'user',
      (m) => partsText(m['content'], 'text'),
    );
  },
  injectBlock<R>(request: R, block: string): R {
    if (!isRecord(request)) return request;
    const messages = asArray(request['messages']);
    if (messages === null) return request;
    const index = messages.findIndex((m) => isRecord(m) && (m['role'] === 'system' || m['role'] === 'developer'));
    let next: unknown[];
    if (index === -1) {
      next = [{ role: 'system', content: block }, ...messages];
    } else {
      const message = messages[index] as JsonRecord;
      const content = appendToContent(message['content'], block, 'text');
      if (content === null) {
        next = [{ role: 'system', content: block }, ...messages];
      } else {
        next = messages.slice();
        next[index] = { ...message, content };
      }
    }
    return { ...request, messages: next } as R;
  },
  replyText(response) {
    if (!isRecord(response)) return null;
    const choice = asArray(response['choices'])?.[0];
    if (!isRecord(choice) || !isRecord(choice['message'])) return null;
    return partsText(choice['message']['content'], 'text');
  },
  streamDeltaText(chunk) {
    if (!isRecord(chunk)) return null;
    const choice = asArray(chunk['choices'])?.[0];
    if (!isRecord(choice) || !isRecord(choice['delta'])) return null;
    const content = choice['delta']['content'];
    return typeof content === 'string' ? content : null;
  },
};
