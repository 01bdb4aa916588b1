import type { Scope } from '../model/scope.js';
import type { Candidate } from './candidate.js';
import type { LlmUsage } from './llm-usage.js';
import type { Neighbour } from './neighbours.js';
import type { FormationOp } from './operations.js';

export const CONSOLIDATION_ACTIONS = ['ADD', 'UPDATE', 'SUPERSEDE', 'NOOP'] as const;
export type ConsolidationAction = (typeof CONSOLIDATION_ACTIONS)[number];

/** A candidate with the existing memories it is compared with. */
export interface ConsolidationItem {
  candidate: Candidate;
  neighbours: Neighbour[];
}

/** Candidates decided together (one window's), in the order they were said. */
export interface ConsolidationBatch {
  scope: Scope;
  items: ConsolidationItem[];
}

/** What a decision acts on: one of the item's neighbours, or an earlier candidate of the batch. */
export type DecisionTarget = { kind: 'memory'; id: string } | { kind: 'candidate'; index: number };

/** What becomes of one candidate, and who decided it. */
export interface Decision {
  /** Position of the candidate in the batch. */
  candidate: number;
  action: ConsolidationAction;
  /** Null for ADD. */
  target: DecisionTarget | null;
  /** The merged text of an UPDATE; null otherwise (the candidate's text is used). */
  text: string | null;
  decidedBy: 'llm' | 'rules';
  reason: string;
}

/** Something about the decision that did not go as asked (recorded, never thrown). */
export interface ConsolidationNote {
  candidate: number | null;
  problem: 'llm-failed' | 'unknown-handle' | 'missing-decision' | 'duplicate-decision' | 'invalid-decision';
  detail: string;
}

export interface ConsolidationResult {
  consolidator: { name: string; version: string };
  /** One per candidate, in batch order. */
  decisions: Decision[];
  /** What a store transaction applies, in order. */
  operations: FormationOp[];
  notes: ConsolidationNote[];
  usage: LlmUsage;
}

export interface ConsolidateOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Decides ADD / UPDATE / SUPERSEDE / NOOP for a batch of candidates and turns the decisions into
 * operations. Never rejects because of its LLM: a failed or unusable answer falls back to the
 * deterministic rules, with a note.
 */
export interface Consolidator {
  readonly name: string;
  readonly version: string;
  consolidate(batch: ConsolidationBatch, options?: ConsolidateOptions): Promise<ConsolidationResult>;
}

/** What building operations needs injected. */
export interface ConsolidationDeps {
  /** Id of each new memory. */
  newId: () => string;
}
