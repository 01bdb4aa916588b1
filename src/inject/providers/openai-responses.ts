import type { ProviderAdapter } from './provider-adapter.js';
import { appendText, asArray, isRecord, joinTexts, lastUserText } from './json-guards.js';

function itemText(content: unknown): string | null {
  if (typeof content === 'string') return joinTexts([content]);
  const parts = asArray(content);
  if (parts === null) return null;
  const texts: string[] = [];
  for (const part of parts) {
    if (isRecord(part) && part['type'] === 'input_text' && typeof part['text'] === 'string') texts.push(part['text']);
  }
  return joinTexts(texts);
}

/**
 * OpenAI Responses: `input` is a string or an item array (messages with `content` string or
 * `[{type:'input_text', text}]`; other item types such as function_call_output are skipped).
 * The block goes into `instructions` (appended after a blank line, or set when null/absent).
 */
export const openaiResponses: ProviderAdapter = {
  name: 'openai-responses',
  extractQuery(request) {
    if (!isRecord(request)) return null;
    const input = request['input'];
    if (typeof input === 'string') return joinTexts([input]);
    const items = asArray(input);
    if (items === null) return null;
    return lastUserText(
      items,
      (item) => item['role'] === 'user' && (item['type'] === undefined || item['type'] === 'message'),
      (item) => itemText(item['content']),
    );
  },
  injectBlock<R>(request: R, block: string): R {
    if (!isRecord(request)) return request;
    const instructions = request['instructions'];
    if (instructions === undefined || instructions === null) return { ...request, instructions: block } as R;
    if (typeof instructions === 'string') return { ...request, instructions: appendText(instructions, block) } as R;
    return request;
  },
  replyText(response) {
    if (!isRecord(response)) return null;
    const output = asArray(response['output']);
    if (output === null)
      return typeof response['output_text'] === 'string' ? joinTexts([response['output_text']]) : null;
    const texts: string[] = [];
    for (const item of output) {
      if (!isRecord(item) || item['type'] !== 'message') continue;
      for (const part of asArray(item['content']) ?? []) {
        if (isRecord(part) && part['type'] === 'output_text' && typeof part['text'] === 'string')
          texts.push(part['text']);
      }
    }
    return joinTexts(texts);
  },
  streamDeltaText(chunk) {
    if (!isRecord(chunk) || chunk['type'] !== 'response.output_text.delta') return null;
    return typeof chunk['delta'] === 'string' ? chunk['delta'] : null;
  },
};
