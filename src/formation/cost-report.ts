import { addUsage, type LlmUsage } from './llm-usage.js';

/** What one window cost. */
export interface WindowCost {
  turns: number;
  extraction: LlmUsage;
  consolidation: LlmUsage;
}

/** LLM cost of a formation run, totals and per 1,000 turns, against the goals. */
export interface CostReport {
  turns: number;
  windows: number;
  extraction: LlmUsage;
  consolidation: LlmUsage;
  per1000Turns: { extractionCalls: number; consolidationCalls: number; inputTokens: number; outputTokens: number };
  /** Goal: at most 1 (one extraction call per 10 turns or fewer). */
  extractionCallsPer10Turns: number;
  /** Goal: at most 1. Null when there was no extraction call (a rule-based extractor). */
  consolidationCallsPerExtractionCall: number | null;
  /** Goal: at most 1. */
  consolidationCallsPerWindow: number;
  meetsGoals: boolean;
}

/** Sums window costs. Calls include failed ones: a failed call is paid for in time if not in tokens. */
export function summarizeCost(windows: WindowCost[]): CostReport {
  const turns = windows.reduce((sum, w) => sum + w.turns, 0);
  const extraction = addUsage(...windows.map((w) => w.extraction));
  const consolidation = addUsage(...windows.map((w) => w.consolidation));
  const extractionCalls = extraction.calls + extraction.failedCalls;
  const consolidationCalls = consolidation.calls + consolidation.failedCalls;
  const per = (n: number): number => (turns === 0 ? 0 : (n * 1000) / turns);
  const extractionCallsPer10Turns = turns === 0 ? 0 : (extractionCalls * 10) / turns;
  const consolidationCallsPerExtractionCall = extractionCalls === 0 ? null : consolidationCalls / extractionCalls;
  const consolidationCallsPerWindow = windows.length === 0 ? 0 : consolidationCalls / windows.length;
  return {
    turns,
    windows: windows.length,
    extraction,
    consolidation,
    per1000Turns: {
      extractionCalls: per(extractionCalls),
      consolidationCalls: per(consolidationCalls),
      inputTokens: per(extraction.inputTokens + consolidation.inputTokens),
      outputTokens: per(extraction.outputTokens + consolidation.outputTokens),
    },
    extractionCallsPer10Turns,
    consolidationCallsPerExtractionCall,
    consolidationCallsPerWindow,
    meetsGoals:
      extractionCallsPer10Turns <= 1 && (consolidationCallsPerExtractionCall ?? consolidationCallsPerWindow) <= 1,
  };
}
