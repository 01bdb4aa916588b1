import type { BoostContext } from '../../model/boost-context.js';
import type { ParsedGoal } from '../../model/parsed-goal.js';
import type { Scope } from '../../model/scope.js';
import type { LexicalWeights } from '../../recall/lexical-weights.js';
import type { RecallProfileSpec } from '../../recall/recall-profile.js';
import type { MemoryStore } from '../../store/memory-store.js';
import type { Reranker } from '../rank/reranker.js';

/** Shared inputs of every path of one search. */
export interface PathInputs {
  store: MemoryStore;
  model: string;
  scope: Scope;
  /** Only memories valid at this instant (`MemoryFilter.validAt`). */
  validAt?: string | undefined;
  collection: string | null;
  goal: ParsedGoal;
  queryTexts: string[];
  queryVectors: Float32Array[];
  keywordTerms: string[];
  priority?: Partial<Omit<Scope, 'tenant'>> | undefined;
  boost?: BoostContext | undefined;
  profile: RecallProfileSpec;
  weights: LexicalWeights;
  reranker: Reranker;
  /** Run the full-text channel inside scope paths (the keyword path always runs it). */
  fulltext: boolean;
  signal?: AbortSignal | undefined;
  now: () => number;
}
