import type { JsonValue } from '../model/json.js';
import type { ChatModel, ChatRequest } from './chat-model.js';
import { extractJsonObject } from './extract-json.js';

/**
 * Asks the model in JSON mode and returns the first JSON object of its answer
 * (fences, prose and trailing text tolerated). Rejects with `EngramError('LLM_ERROR')` when the
 * answer holds no object.
 */
export async function chatJson(model: ChatModel, request: ChatRequest): Promise<{ [key: string]: JsonValue }> {
  const response = await model.chat({ ...request, json: request.json ?? true });
  return extractJsonObject(response.text);
}
