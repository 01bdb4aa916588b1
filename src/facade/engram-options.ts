import type { Embedder } from '../embed/embedder.js';
import type { FormationEvent } from '../formation/formation-event.js';
import type { FormationOptions } from '../formation/formation-options.js';
import type { RecallOptions } from '../model/api.js';
import type { InputLimits } from '../model/validate.js';
import type { FusionCalibration } from '../recall/calibrate-fusion.js';
import type { LexicalWeights } from '../recall/lexical-weights.js';
import type { WriteSafetyOptions } from '../safety/write-guard.js';
import type { Reranker } from '../search/rank/reranker.js';
import type { SearcherDeps } from '../search/searcher.js';
import type { MemoryStore } from '../store/memory-store.js';

/** Something Engram reports without throwing (background failures, degraded calls). */
export interface EngramEvent {
  type: 'usage-error' | 'store-retry' | 'formation';
  error?: unknown;
  detail?: Record<string, unknown>;
  /** What formation's background work did (type `formation`). */
  formation?: FormationEvent | undefined;
}

/** Defaults applied to every {@link Engram.recall} call. */
export interface RecallDefaults {
  /** @default 5 */
  limit: number;
  /** @default 0.1 */
  threshold: number;
  /** @default 'engram' */
  profile: 'engram' | 'seed';
  /** Config-level lexical weights (below explicit options, above the environment). */
  lexicalWeights?: Partial<LexicalWeights> | undefined;
  /**
   * A calibration of the default profile for an embedder ({@link Engram.calibrateFusion}, `engram
   * calibrate --json`): its weights replace the default profile's defaults when its `model` is this
   * instance's embedder, and are ignored otherwise; the `seed` profile never reads them.
   * @default none (0.5 / 0.5)
   */
  calibration?: Pick<FusionCalibration, 'model' | 'weights'> | undefined;
}

/** Options of {@link Engram.open}. */
export interface EngramOptions {
  /** An opened store. */
  store: MemoryStore;
  /** The embedder for memories and queries. */
  embedder: Embedder;
  /** Input size limits. @default DEFAULT_LIMITS */
  limits?: Partial<InputLimits> | undefined;
  recall?: Partial<RecallDefaults> | undefined;
  /** Retries of transient storage conflicts. @default 3 */
  storeRetries?: number | undefined;
  /** Record use count / last use of recalled memories, in the background. @default true */
  trackUsage?: boolean | undefined;
  /**
   * How long recalled memories' uses gather before they are written together (one write per
   * tenant per window; `close()` writes what is gathered). @default 100
   */
  usageFlushMs?: number | undefined;
  /** Environment read for `ENGRAM_RECALL_LEX_WEIGHT*`. @default process.env */
  env?: Record<string, string | undefined> | undefined;
  /** Wall clock. @default () => new Date() */
  clock?: (() => Date) | undefined;
  /** Id generator for new memories. @default crypto.randomUUID */
  generateId?: (() => string) | undefined;
  /** Background failures and degradations. @default ignored */
  onEvent?: ((event: EngramEvent) => void) | undefined;
  /** LLM, extra rerankers, web providers and collection access for {@link Engram.search}. @default none (fast mode only, noop / cosine-local rerankers) */
  search?: (Pick<SearcherDeps, 'llm' | 'web' | 'canRead'> & { rerankers?: Reranker[] | undefined }) | undefined;
  /** Close the store and embedder on {@link Engram.close}. @default true */
  ownResources?: boolean | undefined;
  /**
   * Write safety: secrets and financial data masked, text that instructs the model flagged, on
   * every write. `policy` is the instance's, `tenantPolicy` looks up each tenant's over it; a
   * call's `safety` can only tighten. @default {} (secrets, cards, IBANs masked; flagging on)
   */
  safety?: WriteSafetyOptions | undefined;
  /**
   * Memory formation: `remember` and capture store turns as deduplicated episodes (always, on a
   * store with formation storage); with an LLM (or the rule-based extractor) a background worker
   * forms time-valid facts from them. @default {} (no LLM: episodes only)
   */
  formation?: FormationOptions | undefined;
}

/** Recall options of the in-process facade (the same as every {@link MemoryApi}'s, `vector` included). */
export type LocalRecallOptions = RecallOptions;
