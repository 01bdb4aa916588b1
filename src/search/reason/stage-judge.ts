import { chatJson } from '../../llm/chat-json.js';
import type { ChatModel } from '../../llm/chat-model.js';
import type { Memory } from '../../model/memory.js';
import { reasonerLines } from './reasoner-lines.js';

/** Asks whether the memories answer the query and what else to look for (one deep-search stage). */
export const STAGE_PROMPT = `You check whether retrieved memories are enough to answer a question.
Each memory is a line "[id] key: memory". Return JSON:
{"can_answer": boolean, "reason": string, "retrieval_phrases": [string, ...]}
"retrieval_phrases" (at most 3, short, searchable) say what is still missing when can_answer is false.`;

/** One stage verdict. */
export interface StageVerdict {
  canAnswer: boolean;
  phrases: string[];
  reason: string;
}

/** Runs one stage judgement; throws when the answer is unusable. */
export async function judgeStage(
  llm: ChatModel,
  query: string,
  memories: readonly Memory[],
  options: { signal?: AbortSignal | undefined; maxPhrases?: number } = {},
): Promise<StageVerdict> {
  const json = await chatJson(llm, {
    messages: [
      { role: 'system', content: STAGE_PROMPT },
      { role: 'user', content: `Question: ${query}\n\nMemories:\n${reasonerLines(memories) || '(none)'}` },
    ],
    signal: options.signal,
  });
  const canAnswer = json.can_answer === true;
  const phrases = Array.isArray(json.retrieval_phrases)
    ? json.retrieval_phrases.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim())
    : [];
  return { canAnswer, phrases: [...new Set(phrases)].slice(0, options.maxPhrases ?? 3), reason: typeof json.reason === 'string' ? json.reason : '' };
}
