/**
 * Engram: a memory layer for LLM applications.
 *
 * The root entry exports the facade, the shared contracts and the model. Backends and adapters
 * live under subpaths so an application only loads what it uses: `engram-memory/store`,
 * `engram-memory/embed`, `engram-memory/inject`, `engram-memory/search`, `engram-memory/server`,
 * `engram-memory/client`, `engram-memory/mcp`.
 */
export {
  Engram,
  type EngramEvent,
  type EngramOptions,
  type LocalRecallOptions,
  type RecallDefaults,
} from './engram.js';
export * from './model/index.js';
export {
  calibrateFusion,
  type CalibrateFusionOptions,
  type FusionCalibration,
  DEFAULT_LEXICAL_WEIGHTS,
  ENGRAM_PROFILE,
  RECALL_PROFILES,
  SEED_PROFILE,
  resolveLexicalWeights,
  type LexicalWeights,
  type RecallProfileSpec,
} from './recall/index.js';
export { openStore } from './store/open-store.js';
export type { MemoryStore } from './store/memory-store.js';
export type { Embedder, EmbedOptions } from './embed/embedder.js';
export { retry, type RetryOptions } from './util/retry.js';
