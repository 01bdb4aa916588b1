import type { RecallTimings } from '../model/api.js';
import type { EngramError } from '../model/errors.js';
import type { Scope } from '../model/scope.js';
import type { ProviderName } from '../model/provider-name.js';

/** Why a request went out without a context block. */
export type SkipReason =
  /** Recall is turned off for this wrapper. */
  | 'disabled'
  /** No scope was given and the scope resolver returned none. */
  | 'no-scope'
  /** The request has no user text to recall for (or an unknown shape). */
  | 'no-query'
  /** Recall returned no hit above the threshold. */
  | 'no-hits'
  /** Recall ranked memories, but every one scored below the threshold. */
  | 'below-threshold'
  /** The hits produced no block within the bounds (e.g. `maxChars` too small). */
  | 'empty-block'
  /** The request has a query but no place the block can go (e.g. `system` of an unknown type). */
  | 'unsupported-request'
  /** Recall did not finish within the time budget. */
  | 'timeout'
  /** Recall (or scope resolution) failed. */
  | 'recall-error';

/** What happened to one wrapped call. Delivered to `onEvent`; never thrown. */
export type InjectEvent =
  | {
      type: 'injected';
      provider: ProviderName;
      query: string;
      scope: Scope;
      /** Memories in the block. */
      memories: number;
      omittedMemories: number;
      chars: number;
      approxTokens: number;
      /** Recall wall time as seen by the wrapper (budget-limited). */
      recallMs: number;
      /** Time to format the block and build the new request. */
      injectMs: number;
      /** Recall's own stage timings (query embedding, dense, lexical, rank). */
      timings: RecallTimings;
    }
  | {
      type: 'skipped';
      provider: ProviderName;
      reason: SkipReason;
      query: string | null;
      recallMs?: number | undefined;
      error?: EngramError | undefined;
    }
  | { type: 'captured'; provider: ProviderName; scope: Scope; count: number }
  | { type: 'capture-failed'; provider: ProviderName; error: EngramError };

/** Receives {@link InjectEvent}s. Exceptions it throws are swallowed. */
export type InjectEventListener = (event: InjectEvent) => void;
