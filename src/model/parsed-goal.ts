/** What the planner understood of a query (the multi-path searcher's parsed task goal). */
export interface ParsedGoal {
  /** Exact keys for the graph channel (`memory.key ∈ keys`). */
  keys: string[];
  /** Tags for the graph channel (≥ 2 shared tags). */
  tags: string[];
  /** The query rewritten for retrieval; the original query in fast mode. */
  rephrasedQuery: string;
  /** Query expansions, each embedded and searched (fine mode: 2–5; fast mode: `[query]`). */
  memories: string[];
  /** Whether web results should be added. */
  internetSearch: boolean;
  /** Free-form goal category, e.g. `retrieval`, `question`, `task`. */
  goalType: string;
  /** Caller context passed to the planner. */
  context: string;
}

/** How a plan was made. */
export interface PlanInfo {
  mode: 'fast' | 'fine';
  /** Why fine mode fell back to fast, when it did. */
  fallback?: string | undefined;
}
