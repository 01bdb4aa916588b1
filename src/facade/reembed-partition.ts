import type { Embedder } from '../embed/embedder.js';
import { withCheckedVectors } from '../embed/with-checked-vectors.js';
import type { WriteOptions } from '../model/api.js';
import type { MemoryFilter } from '../model/memory-filter.js';
import { validateScope } from '../model/validate.js';
import type { FacadeContext } from './facade-context.js';
import { ALL_STATUSES } from './request-checks.js';

/** Options of {@link Engram.reembed}. */
export type ReembedOptions = WriteOptions & {
  /** The embedder to re-embed with. @default the instance's */
  embedder?: Embedder;
  /** Memories embedded and written per batch. @default 64 */
  batchSize?: number;
  /** Called after each batch with the memories re-embedded so far and the partition's total. */
  onProgress?: (done: number, total: number) => void;
};

/**
 * Re-embeds every memory of the scope's (tenant, user) partition, every status, batch by batch:
 * each batch's vectors are checked before any of it is written, each write is recorded as a
 * `re-embed` with the model. The partition's known model is forgotten afterwards. Returns how
 * many memories were re-embedded.
 */
export async function reembedPartition(
  ctx: Pick<FacadeContext, 'store' | 'embedder' | 'embedding' | 'clock' | 'withRetry'>,
  options: ReembedOptions,
): Promise<number> {
  const scope = validateScope(options?.scope);
  // Another embedder's answers are checked as the instance's are (wrapping that one again is a no-op).
  const embedder = withCheckedVectors(options.embedder ?? ctx.embedder);
  const batchSize = options.batchSize ?? 64;
  const filter: MemoryFilter = { scope: { tenant: scope.tenant, user: scope.user }, statuses: ALL_STATUSES };
  const total = await ctx.withRetry(() => ctx.store.count(filter));
  let done = 0;
  let cursor: string | undefined;
  do {
    const page = await ctx.withRetry(() => ctx.store.list(filter, { limit: batchSize, cursor }));
    if (page.items.length === 0) break;
    const vectors = await embedder.embed(
      page.items.map((m) => m.text),
      { role: 'document' },
    );
    // The vectors were checked (count, dimension, values) before any of the page is written.
    const embedding = { model: embedder.model, dim: embedder.dim > 0 ? embedder.dim : (vectors[0]?.length ?? 0) };
    for (const [i, memory] of page.items.entries()) {
      const vector = vectors[i] as Float32Array;
      await ctx.withRetry(() =>
        ctx.store.update(
          scope.tenant,
          memory.id,
          { updatedAt: memory.updatedAt },
          { vector, embedding },
          {
            cause: { type: 're-embed', model: embedder.model },
            caller: options.caller,
            at: ctx.clock().toISOString(),
          },
        ),
      );
    }
    done += page.items.length;
    options.onProgress?.(done, total);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  ctx.embedding.forget(scope);
  return done;
}
