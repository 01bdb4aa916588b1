import type { Embedder } from '../embed/embedder.js';
import type { Scope } from '../model/scope.js';
import type { WarmReport } from '../model/warm-report.js';
import type { MemoryStore } from '../store/memory-store.js';

/** What the warm-up embeds: a short sentence and one of a question's length. */
const WARM_UP_TEXTS = ['warm up', 'what did we talk about last week when we planned the trip together?'];

/** What {@link warmUp} needs of the facade. */
export interface WarmUpDeps {
  store: MemoryStore;
  embedder: Embedder;
  /** Checks (and remembers) the scope's embedding model, as a recall does first. */
  checkModel(scope: Scope): Promise<void>;
  /** One recall of the scope that records no usage. */
  recall(scope: Scope, queryVector: Float32Array): Promise<void>;
}

/**
 * Embeds two sentences of different lengths twice, concurrently then in the other order, so an
 * embedder with several workers runs each on both (a runtime's first pass over a new input shape
 * costs far more than the next). Returns a vector for the warm-up recalls.
 */
async function warmEmbedder(embedder: Embedder): Promise<Float32Array | undefined> {
  const [first] = await Promise.all(WARM_UP_TEXTS.map((t) => embedder.embed([t])));
  await Promise.all([...WARM_UP_TEXTS].reverse().map((t) => embedder.embed([t])));
  return first?.[0];
}

/**
 * The facade's warm-up: the store loads the caches of the scopes it served recently (see
 * `MemoryStore.warm`) while the embedder runs; then each warmed scope has its embedding model
 * checked (the stats query its first recall otherwise pays) and one recall that records no usage
 * (compiling the read path and reading its first rows).
 */
export async function warmUp(deps: WarmUpDeps): Promise<WarmReport> {
  const start = performance.now();
  const [report, vector] = await Promise.all([deps.store.warm?.(), warmEmbedder(deps.embedder)]);
  for (const p of report?.partitions ?? []) {
    const scope = { tenant: p.tenant, user: p.user ?? undefined };
    // A scope that mixes models is its requests' error to report, not the warm-up's.
    await deps.checkModel(scope).catch(() => undefined);
    if (vector !== undefined && p.model === deps.embedder.model)
      await deps.recall(scope, vector).catch(() => undefined);
  }
  return report ?? { partitions: [], skipped: 0, cachedMemories: 0, cachedBytes: 0, ms: performance.now() - start };
}
