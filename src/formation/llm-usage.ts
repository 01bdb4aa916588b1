import type { ChatResponse } from '../llm/chat-model.js';

/**
 * What the LLM calls of one step cost, from the providers' usage fields (OpenAI
 * `prompt_tokens` / `completion_tokens`, Anthropic `input_tokens` / `output_tokens`). A call is
 * one `ChatModel.chat`: HTTP retries inside the client (429, 5xx) are not counted again, since
 * providers do not bill refused requests.
 */
export interface LlmUsage {
  /** Calls that returned an answer. */
  calls: number;
  /** Calls that failed (after the client's own retries). */
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Answered calls whose provider reported no usage (their tokens are missing from the sums). */
  callsWithoutUsage: number;
}

export const NO_USAGE: LlmUsage = Object.freeze({
  calls: 0,
  failedCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  callsWithoutUsage: 0,
});

/** The usage of one answered call. */
export function usageOf(response: ChatResponse): LlmUsage {
  const usage = response.usage;
  return usage
    ? {
        calls: 1,
        failedCalls: 0,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        callsWithoutUsage: 0,
      }
    : { calls: 1, failedCalls: 0, inputTokens: 0, outputTokens: 0, callsWithoutUsage: 1 };
}

/** The usage of one failed call. */
export const FAILED_CALL: LlmUsage = Object.freeze({ ...NO_USAGE, failedCalls: 1 });

/** Field-wise sum. */
export function addUsage(...parts: LlmUsage[]): LlmUsage {
  const out = { ...NO_USAGE };
  for (const p of parts) {
    out.calls += p.calls;
    out.failedCalls += p.failedCalls;
    out.inputTokens += p.inputTokens;
    out.outputTokens += p.outputTokens;
    out.callsWithoutUsage += p.callsWithoutUsage;
  }
  return out;
}

/**
 * The usage of a step that rejected: what the error carries in `details.usage` (an answer that
 * was paid for but unusable, e.g. invalid JSON), else one failed call.
 */
export function usageOfFailure(error: unknown): LlmUsage {
  const details = typeof error === 'object' && error !== null ? (error as { details?: unknown }).details : undefined;
  const usage = typeof details === 'object' && details !== null ? (details as { usage?: unknown }).usage : undefined;
  if (typeof usage === 'object' && usage !== null && typeof (usage as LlmUsage).calls === 'number')
    return { ...NO_USAGE, ...(usage as LlmUsage) };
  return { ...FAILED_CALL };
}
