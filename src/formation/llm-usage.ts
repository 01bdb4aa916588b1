import type { ChatResponse } from '../llm/chat-model.js';

import type { LlmUsage } from '../model/formation/llm-usage.js';

export type { LlmUsage } from '../model/formation/llm-usage.js';

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
