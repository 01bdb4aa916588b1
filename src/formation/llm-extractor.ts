import { z } from 'zod';
import type { ChatModel, ChatResponse } from '../llm/chat-model.js';
import { extractJsonObject } from '../llm/extract-json.js';
import { EngramError } from '../model/errors.js';
import type { JsonValue } from '../model/json.js';
import type { Candidate, Dropped, ExtractorInfo } from './candidate.js';
import { buildExtractionPrompt, EXTRACTION_PROMPT_VERSION } from './extraction-prompt.js';
import type { ExtractionWindow } from './extraction-window.js';
import type { ExtractionResult, Extractor, ExtractOptions, WindowLimits } from './extractor.js';
import { FACT_KINDS } from './fact-kind.js';
import { finishCandidate } from './finish-candidate.js';
import { NO_USAGE, usageOf, type LlmUsage } from './llm-usage.js';
import { estimateTokens } from './plan-windows.js';

/** Options of {@link createLlmExtractor}. */
export interface LlmExtractorOptions {
  /** Any chat client of `src/llm` (OpenAI-compatible incl. Ollama / vLLM, Anthropic). */
  model: ChatModel;
  /** @default 20 */
  maxTurns?: number | undefined;
  /** Approximate tokens of the turns' text per call. @default 4000 */
  maxTokens?: number | undefined;
  /** Completion budget of a call. @default 2000 */
  maxCompletionTokens?: number | undefined;
  /** Candidates kept per window; the rest are dropped as `too-many-candidates`. @default 50 */
  maxCandidates?: number | undefined;
  /** Candidates below are dropped as `low-confidence`. @default 0.5 */
  minConfidence?: number | undefined;
}

const AnswerSchema = z.object({ memories: z.array(z.unknown()) });

const ItemSchema = z.object({
  text: z.string().trim().min(1).max(2000),
  kind: z.enum(FACT_KINDS),
  key: z.string().max(200).nullish(),
  tags: z.array(z.string().min(1).max(64)).max(16).optional(),
  confidence: z.number().min(0).max(1),
  turns: z.array(z.string()).min(1).max(64),
  when: z.string().max(120).nullish(),
});

function invalidOutput(
  reason: 'invalid-json' | 'invalid-shape',
  info: ExtractorInfo,
  usage: LlmUsage,
  cause: unknown,
): EngramError {
  const message =
    reason === 'invalid-json' ? 'answered with no JSON object' : 'answered JSON without a "memories" array';
  return new EngramError('LLM_ERROR', `extractor ${info.name}@${info.version} ${message}`, {
    cause,
    isRetryable: true,
    details: { reason, extractor: `${info.name}@${info.version}`, usage: { ...usage } },
  });
}

function windowTokens(window: ExtractionWindow): number {
  return window.turns.reduce((sum, t) => sum + estimateTokens(t.text), 0);
}

function checkWindow(window: ExtractionWindow, limits: WindowLimits): void {
  const tokens = windowTokens(window);
  if (window.turns.length > limits.maxTurns || (window.turns.length > 1 && tokens > limits.maxTokens)) {
    throw new EngramError(
      'INVALID_INPUT',
      `window of ${window.turns.length} turns (~${tokens} tokens) exceeds the extractor's limits`,
      {
        details: { field: 'window', turns: window.turns.length, tokens, limits: { ...limits } },
      },
    );
  }
}

/** Maps one raw item to a candidate, dropping what does not hold (schema, turn handles, date). */
function readItem(
  item: unknown,
  index: number,
  handles: Map<string, string>,
  window: ExtractionWindow,
  info: ExtractorInfo,
  minConfidence: number,
): { candidate: Candidate | null; dropped: Dropped[] } {
  const parsed = ItemSchema.safeParse(item);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(item)'}: ${i.message}`).join('; ');
    return { candidate: null, dropped: [{ reason: 'invalid-candidate', detail, index, candidateDropped: true }] };
  }
  const value = parsed.data;
  const dropped: Dropped[] = [];
  const ids: string[] = [];
  for (const handle of new Set(value.turns)) {
    const id = handles.get(handle.trim().replace(/^\[|\]$/g, ''));
    if (id === undefined)
      dropped.push({
        reason: 'unknown-turn',
        detail: `turn "${handle}" is not in the window`,
        index,
        candidateDropped: false,
      });
    else ids.push(id);
  }
  const raw = {
    text: value.text,
    kind: value.kind,
    key: value.key ?? null,
    tags: value.tags ?? [],
    confidence: value.confidence,
  };
  const finished = finishCandidate(
    { ...raw, sourceTurnIds: ids, when: value.when ?? null },
    index,
    window,
    info,
    minConfidence,
  );
  return { candidate: finished.candidate, dropped: [...dropped, ...finished.dropped] };
}

/**
 * The LLM extractor: one chat call per window, JSON mode, the answer validated item by item
 * with a zod schema. Turn handles the model invents and dates it cannot back with the source
 * turns are dropped with a recorded reason; relative dates are resolved in code. An answer that
 * is not JSON, or not `{"memories": [...]}`, rejects with a retryable
 * `EngramError('LLM_ERROR', { details.reason: 'invalid-json' | 'invalid-shape', details.usage })`;
 * provider failures reject with the client's own error (`LLM_ERROR`, `TIMEOUT`, `UNAUTHORIZED`).
 */
export function createLlmExtractor(options: LlmExtractorOptions): Extractor {
  const limits: WindowLimits = { maxTurns: options.maxTurns ?? 20, maxTokens: options.maxTokens ?? 4000 };
  const info: ExtractorInfo = {
    name: 'llm',
    version: `${EXTRACTION_PROMPT_VERSION}+${options.model.id}`,
    method: 'llm',
  };
  const maxCandidates = options.maxCandidates ?? 50;
  const minConfidence = options.minConfidence ?? 0.5;
  return {
    ...info,
    limits,
    async extract(window: ExtractionWindow, extractOptions: ExtractOptions = {}): Promise<ExtractionResult> {
      checkWindow(window, limits);
      if (window.turns.length === 0) return { extractor: info, candidates: [], dropped: [], usage: { ...NO_USAGE } };
      const prompt = buildExtractionPrompt(window);
      const response: ChatResponse = await options.model.chat({
        messages: prompt.messages,
        json: true,
        maxTokens: options.maxCompletionTokens ?? 2000,
        signal: extractOptions.signal,
      });
      const usage = usageOf(response);
      let answer: { [key: string]: JsonValue };
      try {
        answer = extractJsonObject(response.text);
      } catch (error) {
        throw invalidOutput('invalid-json', info, usage, error);
      }
      const shape = AnswerSchema.safeParse(answer);
      if (!shape.success) throw invalidOutput('invalid-shape', info, usage, shape.error);
      const candidates: Candidate[] = [];
      const dropped: Dropped[] = [];
      shape.data.memories.forEach((item, index) => {
        if (index >= maxCandidates) {
          dropped.push({
            reason: 'too-many-candidates',
            detail: `more than ${maxCandidates} candidates`,
            index,
            candidateDropped: true,
          });
          return;
        }
        const read = readItem(item, index, prompt.handles, window, info, minConfidence);
        if (read.candidate) candidates.push(read.candidate);
        dropped.push(...read.dropped);
      });
      return { extractor: info, candidates, dropped, usage };
    },
  };
}
