import type { Candidate, Dropped, ExtractorInfo } from './candidate.js';
import type { ExtractionWindow } from './extraction-window.js';
import type { LlmUsage } from './llm-usage.js';

/** Largest window an extractor takes in one call; the window planner cuts conversations to fit. */
export interface WindowLimits {
  /** @default 20 */
  maxTurns: number;
  /** Approximate tokens of the turns' text. @default 4000 */
  maxTokens: number;
}

/** What one extraction call produced. */
export interface ExtractionResult {
  extractor: ExtractorInfo;
  candidates: Candidate[];
  /** What was dropped, each with its reason: nothing is discarded silently. */
  dropped: Dropped[];
  usage: LlmUsage;
}

export interface ExtractOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Turns a window of conversation into memory candidates. Like the `Embedder`, it names itself:
 * (`name`, `version`) goes into the idempotency key of every window, so a new prompt or model
 * forms the same turns again while a restart of the same one never does. Rejects with a
 * retryable `EngramError` when trying again may help (provider errors, invalid JSON).
 */
export interface Extractor extends ExtractorInfo {
  readonly limits: WindowLimits;
  extract(window: ExtractionWindow, options?: ExtractOptions): Promise<ExtractionResult>;
}
