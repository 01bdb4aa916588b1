import type { ProviderAdapter } from './provider-adapter.js';
import { asArray, isRecord, joinTexts, lastUserText } from './json-guards.js';

function partsText(content: unknown): string | null {
  if (typeof content === 'string') return joinTexts([content]);
  const parts = asArray(content);
  if (parts === null) return null;
  const texts: string[] = [];
  for (const part of parts) {
    if (isRecord(part) && part['type'] === 'text' && typeof part['text'] === 'string') texts.push(part['text']);
  }
  return joinTexts(texts);
}

/**
 * Vercel AI SDK language-model call options (`LanguageModelV2/V3/V4CallOptions`): `prompt` is a
 * message array whose system messages have string `content` and whose user messages have
 * `text` / `file` parts. The block becomes a new system message placed right after the leading
 * system messages (or first, when there are none); every existing message is kept as it was.
 */
export const aiSdkPrompt: ProviderAdapter = {
  name: 'ai-sdk-prompt',
  extractQuery(request) {
    if (!isRecord(request)) return null;
    const prompt = asArray(request['prompt']);
    if (prompt === null) return null;
    return lastUserText(
      prompt,
      (m) => m['role'] === 'user',
      (m) => partsText(m['content']),
    );
  },
  injectBlock<R>(request: R, block: string): R {
    if (!isRecord(request)) return request;
    const prompt = asArray(request['prompt']);
    if (prompt === null) return request;
    let at = 0;
    while (at < prompt.length && isRecord(prompt[at]) && (prompt[at] as Record<string, unknown>)['role'] === 'system')
      at += 1;
    const next = [...prompt.slice(0, at), { role: 'system', content: block }, ...prompt.slice(at)];
    return { ...request, prompt: next } as R;
  },
  replyText(response) {
    if (!isRecord(response)) return null;
    return partsText(response['content']);
  },
  streamDeltaText(chunk) {
    if (!isRecord(chunk) || chunk['type'] !== 'text-delta') return null;
    if (typeof chunk['delta'] === 'string') return chunk['delta'];
    return typeof chunk['textDelta'] === 'string' ? chunk['textDelta'] : null;
  },
};
