import type { ChatModel } from '../../llm/chat-model.js';
import { rewriteMemories } from './memory-rewrite.js';
import { judgeStage } from './stage-judge.js';
import type { Memory } from '../../model/memory.js';

/** Something deep search can retrieve with: a query in, scored memories out. */
export type StageRetriever<T extends { memory: Memory; score: number }> = (query: string, stage: number) => Promise<T[]>;

/** Record of one stage. */
export interface DeepStage {
  stage: number;
  canAnswer: boolean;
  phrases: string[];
  error?: string | undefined;
}

/** Options of {@link deepSearch}. */
export interface DeepSearchOptions {
  /** @default 3 */
  stages?: number | undefined;
  /** Rewrite the final memories with the LLM. @default false */
  rewrite?: boolean | undefined;
  /** Memories shown to the model per stage. @default 20 */
  window?: number | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Multi-stage deep search (the multi-path searcher's `AdvancedSearcher.deep_search`): retrieve, then up to
 * `stages` times ask the model whether the memories answer the query; if not, retrieve each
 * missing phrase (in parallel), merge (same id keeps the best score) and go on. Stops as soon as
 * the model can answer. A stage whose LLM call or retrieval fails is recorded and skipped —
 * never fatal. `merge` combines lists; `first` is the initial retrieval.
 */
export async function deepSearch<T extends { memory: Memory; score: number }>(
  llm: ChatModel,
  query: string,
  first: T[],
  retrieve: StageRetriever<T>,
  merge: (lists: T[][]) => T[],
  options: DeepSearchOptions = {},
): Promise<{ hits: T[]; stages: DeepStage[]; rewrites: Map<string, string>; errors: string[] }> {
  const maxStages = options.stages ?? 3;
  const window = options.window ?? 20;
  let hits = first;
  const stages: DeepStage[] = [];
  const errors: string[] = [];
  for (let stage = 1; stage <= maxStages; stage++) {
    const record: DeepStage = { stage, canAnswer: false, phrases: [] };
    stages.push(record);
    try {
      const verdict = await judgeStage(llm, query, hits.slice(0, window).map((h) => h.memory), { signal: options.signal });
      record.canAnswer = verdict.canAnswer;
      record.phrases = verdict.phrases;
      if (verdict.canAnswer || verdict.phrases.length === 0) break;
      const found = await Promise.all(verdict.phrases.map((p) => retrieve(p, stage)));
      hits = merge([hits, ...found]);
    } catch (error: unknown) {
      const message = error instanceof Error ? error.message : String(error);
      record.error = message;
      errors.push(`stage ${stage}: ${message}`);
    }
  }
  let rewrites = new Map<string, string>();
  if (options.rewrite && hits.length > 0) {
    try {
      rewrites = await rewriteMemories(llm, query, hits.slice(0, window).map((h) => h.memory), { signal: options.signal });
    } catch (error: unknown) {
      errors.push(`rewrite: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { hits, stages, rewrites, errors };
}
