import type { ProviderAdapter } from './provider-adapter.js';
import { appendText, asArray, isRecord, joinTexts, lastUserText, type JsonRecord } from './json-guards.js';

/** Text of a part list (strings or `{text}` parts; thoughts, inline data, files, function parts skipped). */
function partsText(parts: readonly unknown[]): string | null {
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && typeof part['text'] === 'string' && part['thought'] !== true) texts.push(part['text']);
  }
  return joinTexts(texts);
}

function isContent(value: unknown): value is JsonRecord {
  return isRecord(value) && Array.isArray(value['parts']);
}

function isUserContent(content: JsonRecord): boolean {
  return content['role'] === undefined || content['role'] === 'user';
}

/** Appends the block to the first text part of a part list, or adds a text part at the end. */
function appendToParts(parts: readonly unknown[], block: string): unknown[] {
  const next = parts.slice();
  const index = next.findIndex((p) => typeof p === 'string' || (isRecord(p) && typeof p['text'] === 'string'));
  if (index === -1) {
    next.push({ text: block });
    return next;
  }
  const part = next[index];
  next[index] =
    typeof part === 'string'
      ? appendText(part, block)
      : { ...(part as JsonRecord), text: appendText((part as JsonRecord)['text'] as string, block) };
  return next;
}

/** `systemInstruction` (string | Part | Part[] | Content) with the block appended; null when unrecognised. */
function appendToInstruction(instruction: unknown, block: string): unknown {
  if (instruction === undefined || instruction === null) return block;
  if (typeof instruction === 'string') return appendText(instruction, block);
  const parts = asArray(instruction);
  if (parts !== null) return appendToParts(parts, block);
  if (isContent(instruction)) return { ...instruction, parts: appendToParts(instruction['parts'] as unknown[], block) };
  if (isRecord(instruction)) {
    if (typeof instruction['text'] === 'string')
      return { ...instruction, text: appendText(instruction['text'], block) };
    return [instruction, { text: block }];
  }
  return null;
}

/**
 * Google `@google/genai` `generateContent` / `generateContentStream` parameters.
 * Query: `contents` as a string, a Part, a Part array, a Content or a Content array; the last
 * user Content's text parts. Injection: `config.systemInstruction` (or the older top-level
 * `systemInstruction` when that is where the caller put it) as string, Part, Part[] or Content,
 * the block appended to its first text part and everything else kept. A request without
 * `config` gets `config: { systemInstruction }`; the SDK then also sends an empty
 * `generationConfig: {}`, which changes nothing in the model's behaviour.
 */
export const googleGenai: ProviderAdapter = {
  name: 'google-genai',
  extractQuery(request) {
    if (!isRecord(request)) return null;
    const contents = request['contents'];
    if (typeof contents === 'string') return joinTexts([contents]);
    const list = asArray(contents);
    if (list !== null) {
      if (list.length > 0 && list.every(isContent))
        return lastUserText(list, isUserContent, (c) => partsText(c['parts'] as unknown[]));
      return partsText(list.filter((p) => !isContent(p)));
    }
    if (isContent(contents)) return isUserContent(contents) ? partsText(contents['parts'] as unknown[]) : null;
    if (isRecord(contents)) return partsText([contents]);
    return null;
  },
  injectBlock<R>(request: R, block: string): R {
    if (!isRecord(request)) return request;
    const config = request['config'];
    if (
      !(isRecord(config) && config['systemInstruction'] !== undefined) &&
      request['systemInstruction'] !== undefined
    ) {
      const top = appendToInstruction(request['systemInstruction'], block);
      return top === null ? request : ({ ...request, systemInstruction: top } as R);
    }
    if (config !== undefined && !isRecord(config)) return request;
    const instruction = appendToInstruction(isRecord(config) ? config['systemInstruction'] : undefined, block);
    if (instruction === null) return request;
    return { ...request, config: { ...(isRecord(config) ? config : {}), systemInstruction: instruction } } as R;
  },
  replyText(response) {
    if (!isRecord(response)) return null;
    const candidate = asArray(response['candidates'])?.[0];
    if (!isRecord(candidate) || !isContent(candidate['content'])) return null;
    return partsText(candidate['content']['parts'] as unknown[]);
  },
  streamDeltaText(chunk) {
    return googleGenai.replyText(chunk);
  },
};
