import { tokenizeMixed } from '../channels/keyword-terms.js';
import type { CjkSegmenter } from '../channels/cjk-segmenter.js';
import type { ParsedGoal } from '../../model/parsed-goal.js';

/** Options of {@link planFast}. */
export interface FastPlanOptions {
  /** Tokenise the query into keys and tags for the graph channel (the multi-path searcher's `use_fast_graph`). @default false */
  fastGraph?: boolean | undefined;
  /** @default false */
  internetSearch?: boolean | undefined;
  /** @default '' */
  context?: string | undefined;
  segmenter?: CjkSegmenter | undefined;
}

/** Fast mode: no LLM. `memories = [query]`; keys/tags empty unless `fastGraph`. */
export function planFast(query: string, options: FastPlanOptions = {}): ParsedGoal {
  const tokens = options.fastGraph ? tokenizeMixed(query, options.segmenter) : [];
  return {
    keys: tokens,
    tags: tokens,
    rephrasedQuery: query,
    memories: [query],
    internetSearch: options.internetSearch ?? false,
    goalType: 'default',
    context: options.context ?? '',
  };
}
