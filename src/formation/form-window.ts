import type { Candidate } from './candidate.js';
import type { ConsolidationResult, Consolidator } from './consolidator.js';
import type { ExtractionWindow } from './extraction-window.js';
import type { ExtractionResult, Extractor } from './extractor.js';
import type { LlmUsage } from './llm-usage.js';
import type { NeighbourFinder } from './neighbours.js';
import { turnTextKey } from './normalize-turn-text.js';
import type { FormationOp } from './operations.js';
import { isCurrent } from './temporal.js';
import { windowKey } from './window-key.js';

/** What forming a window needs, injected. */
export interface FormationDeps {
  extractor: Extractor;
  consolidator: Consolidator;
  neighbours: NeighbourFinder;
  /** Neighbours asked per candidate. @default 5 */
  neighbourLimit?: number | undefined;
}

/** Everything forming one window produced: what a store transaction applies, and what it cost. */
export interface WindowOutcome {
  /** Idempotency key (scope, extractor name and version, turn ids). */
  key: string;
  turns: number;
  extraction: ExtractionResult;
  /** The extracted candidates after merging those with the same text and key. */
  candidates: Candidate[];
  consolidation: ConsolidationResult;
  operations: FormationOp[];
  usage: { extraction: LlmUsage; consolidation: LlmUsage };
}

/** Candidates repeating one another inside a window become one, with every source turn. */
function mergeRepeats(candidates: Candidate[]): Candidate[] {
  const byText = new Map<string, Candidate>();
  for (const c of candidates) {
    const slot = `${c.key ?? ''}\u0000${turnTextKey(c.text)}`;
    const seen = byText.get(slot);
    if (!seen) byText.set(slot, c);
    else {
      byText.set(slot, {
        ...seen,
        sourceTurnIds: [...new Set([...seen.sourceTurnIds, ...c.sourceTurnIds])],
        tags: [...new Set([...seen.tags, ...c.tags])],
        confidence: Math.max(seen.confidence, c.confidence),
        statedAt: seen.statedAt > c.statedAt ? seen.statedAt : c.statedAt,
      });
    }
  }
  return [...byText.values()];
}

/** A window's extraction, before consolidation: what does not depend on the facts formed so far. */
export interface ExtractedWindow {
  key: string;
  window: ExtractionWindow;
  extraction: ExtractionResult;
  /** The extracted candidates after merging those with the same text and key. */
  candidates: Candidate[];
}

/**
 * The first half of forming a window: its one extraction call. It reads nothing stored, so the
 * windows of one scope can be extracted at the same time; only {@link consolidateWindow} must
 * see the facts of the windows before it.
 */
export async function extractWindow(
  deps: Pick<FormationDeps, 'extractor'>,
  window: ExtractionWindow,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<ExtractedWindow> {
  const extraction = await deps.extractor.extract(window, { signal: options.signal });
  return {
    key: windowKey(window, deps.extractor),
    window,
    extraction,
    candidates: mergeRepeats(extraction.candidates),
  };
}

/**
 * The second half: the neighbours of each candidate (in parallel), one consolidation call, and
 * the resulting operations. Neighbours that are not current, or are the window's own turns, are
 * left out whatever the finder returns. Never rejects because of the LLM: consolidation falls back
 * to the rules by itself.
 */
export async function consolidateWindow(
  deps: FormationDeps,
  extracted: ExtractedWindow,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<WindowOutcome> {
  const { window, extraction, candidates } = extracted;
  const own = new Set(window.turns.map((t) => t.id));
  const limit = deps.neighbourLimit ?? 5;
  const items = await Promise.all(
    candidates.map(async (candidate) => {
      const found = await deps.neighbours(candidate, { scope: window.scope, limit, signal: options.signal });
      return {
        candidate,
        neighbours: found.filter((n) => !own.has(n.memory.id) && isCurrent(n.memory)).slice(0, limit),
      };
    }),
  );
  const consolidation = await deps.consolidator.consolidate({ scope: window.scope, items }, { signal: options.signal });
  return {
    key: extracted.key,
    turns: window.turns.length,
    extraction,
    candidates,
    consolidation,
    operations: consolidation.operations,
    usage: { extraction: extraction.usage, consolidation: consolidation.usage },
  };
}

/**
 * Forms one window: one extraction call, the neighbours of each candidate, one consolidation
 * call, and the resulting operations. Pure of storage: the caller applies `operations` in the
 * transaction that marks the window's job done. Rejects only when extraction fails (retryable per
 * its error).
 */
export async function formWindow(
  deps: FormationDeps,
  window: ExtractionWindow,
  options: { signal?: AbortSignal } = {},
): Promise<WindowOutcome> {
  return consolidateWindow(deps, await extractWindow(deps, window, options), options);
}
