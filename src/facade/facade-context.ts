import type { Embedder } from '../embed/embedder.js';
import type { InputLimits } from '../model/validate.js';
import type { TokenCache } from '../recall/token-cache.js';
import type { WriteGuard } from '../safety/write-guard.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { EngramOptions, RecallDefaults } from './engram-options.js';
import type { ScopeEmbedding } from './scope-embedding.js';

/** What the facade's parts share: one `Engram` instance's store, embedder, checks and settings. */
export interface FacadeContext {
  /** The options the instance was opened with (read at each call: `env`, `onEvent`, `search`, `trackUsage`). */
  options: EngramOptions;
  store: MemoryStore;
  embedder: Embedder;
  /** Embeds texts and holds each partition to one embedding model. */
  embedding: ScopeEmbedding;
  guard: WriteGuard;
  limits: InputLimits;
  recallDefaults: RecallDefaults;
  clock: () => Date;
  generateId: () => string;
  /** Candidates' tokens, reused across recalls (keyed by id and last update). */
  tokenCache: TokenCache;
  /** Runs a store call, retrying transient storage conflicts. */
  withRetry: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Records, in the background, that these memories were recalled. */
  recordUsage: (tenant: string, ids: string[]) => void;
}
