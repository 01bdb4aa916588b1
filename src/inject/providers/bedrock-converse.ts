import type { ProviderAdapter } from './provider-adapter.js';
import { asArray, isRecord, joinTexts, lastUserText } from './json-guards.js';

function blocksText(content: unknown): string | null {
  const blocks = asArray(content);
  if (blocks === null) return null;
  const texts: string[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (typeof block['text'] === 'string') texts.push(block['text']);
    else if (isRecord(block['guardContent']) && isRecord(block['guardContent']['text'])) {
      const guarded = block['guardContent']['text']['text'];
      if (typeof guarded === 'string') texts.push(guarded);
    }
  }
  return joinTexts(texts);
}

/**
 * Bedrock Converse / ConverseStream input: `system: [{text} | {cachePoint} | {guardContent}]`.
 * The block is a new `{text}` entry at the end, so cachePoint and guardContent entries keep
 * their positions (the cached prefix is unchanged). Query: the last user message's `{text}`
 * blocks (and guarded text); images, documents, tool results are skipped.
 */
export const bedrockConverse: ProviderAdapter = {
  name: 'bedrock-converse',
  extractQuery(request) {
    if (!isRecord(request)) return null;
    const messages = asArray(request['messages']);
    if (messages === null) return null;
    return lastUserText(
      messages,
      (m) => m['role'] === 'user',
      (m) => blocksText(m['content']),
    );
  },
  injectBlock<R>(request: R, block: string): R {
    if (!isRecord(request)) return request;
    const system = request['system'];
    if (system === undefined || system === null) return { ...request, system: [{ text: block }] } as R;
    const blocks = asArray(system);
    if (blocks === null) return request;
    return { ...request, system: [...blocks, { text: block }] } as R;
  },
  replyText(response) {
    if (!isRecord(response) || !isRecord(response['output'])) return null;
    const message = response['output']['message'];
    return isRecord(message) ? blocksText(message['content']) : null;
  },
  streamDeltaText(chunk) {
    if (!isRecord(chunk) || !isRecord(chunk['contentBlockDelta'])) return null;
    const delta = chunk['contentBlockDelta']['delta'];
    return isRecord(delta) && typeof delta['text'] === 'string' ? delta['text'] : null;
  },
};
