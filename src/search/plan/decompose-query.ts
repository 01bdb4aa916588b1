import { chatJson } from '../../llm/chat-json.js';
import type { ChatModel } from '../../llm/chat-model.js';

/** The decomposition prompt (the multi-path searcher's chain-of-thought query). */
export const DECOMPOSE_PROMPT = `Decide whether the question asks several things at once.
Return JSON: {"is_complex": boolean, "sub_questions": [string, ...]}.
If it is simple, return {"is_complex": false, "sub_questions": []}.
If it is complex, list the standalone sub-questions (at most 3), each answerable on its own.`;

/** Result of {@link decomposeQuery}. */
export interface Decomposition {
  /** The questions to embed: the sub-questions, or `[query]` when simple or on failure. */
  questions: string[];
  isComplex: boolean;
  /** The failure that made it fall back, if any. */
  error?: string | undefined;
}

/**
 * Query decomposition: the LLM says whether the query is complex and lists sub-questions; at most
 * `maxSubQuestions` are kept. Any error (or a malformed answer) falls back to `[query]`.
 */
export async function decomposeQuery(
  llm: ChatModel,
  query: string,
  options: { maxSubQuestions?: number; signal?: AbortSignal | undefined } = {},
): Promise<Decomposition> {
  const max = options.maxSubQuestions ?? 3;
  try {
    const json = await chatJson(llm, {
      messages: [
        { role: 'system', content: DECOMPOSE_PROMPT },
        { role: 'user', content: query },
      ],
      signal: options.signal,
    });
    if (typeof json.is_complex !== 'boolean') return { questions: [query], isComplex: false, error: 'answer has no boolean "is_complex"' };
    if (!json.is_complex) return { questions: [query], isComplex: false };
    const subs = Array.isArray(json.sub_questions)
      ? json.sub_questions.filter((q): q is string => typeof q === 'string' && q.trim() !== '').map((q) => q.trim())
      : [];
    if (subs.length === 0) return { questions: [query], isComplex: true, error: 'complex but no sub_questions' };
    return { questions: subs.slice(0, max), isComplex: true };
  } catch (error: unknown) {
    return { questions: [query], isComplex: false, error: error instanceof Error ? error.message : String(error) };
  }
}
