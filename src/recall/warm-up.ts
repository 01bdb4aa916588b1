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
  /** `count` recalls of the scope that record no usage (its own newest texts as their queries). */
  recall(scope: Scope, queryVector: Float32Array, count: number): Promise<void>;
}

/**
 * Recalls of the first scope warmed. V8 compiles the read path's hot code only after it has run a
 * few times: with one recall the first real one still ran a median 3.6× a warm one at 10k memories,
 * with eight 2.3× (`bench/cold-start.ts`, five runs each). Later scopes share the compiled code and
 * run one, which reads their first rows.
 */
export const COMPILING_RECALLS = 8;

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
 * checked (the stats query its first recall otherwise pays) and recalls that record no usage
 * (compiling the read path, {@link COMPILING_RECALLS} in the first scope, and reading its first rows).
 */
export async function warmUp(deps: WarmUpDeps): Promise<WarmReport> {
  const start = performance.now();
  const [report, vector] = await Promise.all([deps.store.warm?.(), warmEmbedder(deps.embedder)]);
  let recalls = COMPILING_RECALLS;
  for (const p of report?.partitions ?? []) {
    const scope = { tenant: p.tenant, user: p.user ?? undefined };
    // A scope that mixes models is its requests' error to report, not the warm-up's.
    await deps.checkModel(scope).catch(() => undefined);
    if (vector !== undefined && p.model === deps.embedder.model) {
      await deps.recall(scope, vector, recalls).catch(() => undefined);
      recalls = 1;
    }
  }
  return report ?? { partitions: [], skipped: 0, cachedMemories: 0, cachedBytes: 0, ms: performance.now() - start };
}
