import type { EmbeddingInfo } from '../model/memory.js';
import type { Scope } from '../model/scope.js';
import type { FormationGuard } from '../safety/formation-guard.js';
import type { ApplyContext, ApplyResult, FormationStore, OperationVector } from './formation-store.js';
import type { FormationOp } from './operations.js';
import type { FormationJob } from './work-queue.js';

/** Embeds texts for the store, with the embedding they are under. */
export type EmbedTexts = (
  texts: string[],
  scope: Scope,
) => Promise<{ vectors: Float32Array[]; embedding: EmbeddingInfo }>;

/** The job a window's writes complete: its id, the worker that holds its lease, what it did. */
export interface WindowCompletion {
  id: string;
  owner: string;
  result: NonNullable<FormationJob['result']>;
}

/** The texts a window's operations write, each to be embedded once. */
function textsOf(operations: readonly FormationOp[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const op of operations) {
    if (op.op === 'add') texts.set(op.memory.id, op.memory.text);
    else if (op.op === 'update' && op.patch.text !== undefined) texts.set(op.id, op.patch.text);
  }
  return texts;
}

async function vectorsFor(
  operations: readonly FormationOp[],
  embed: EmbedTexts,
  scope: Scope,
): Promise<Map<string, OperationVector>> {
  const texts = textsOf(operations);
  const out = new Map<string, OperationVector>();
  if (texts.size === 0) return out;
  const unique = [...new Set(texts.values())];
  const { vectors, embedding } = await embed(unique, scope);
  const byText = new Map(unique.map((t, i) => [t, vectors[i] as Float32Array]));
  for (const [id, text] of texts) out.set(id, { vector: byText.get(text) as Float32Array, embedding });
  return out;
}

/** The write guard's part in formation's writes: what an LLM proposed, masked by the tenant's policy. */
export type OperationsGuard = Pick<FormationGuard, 'operations'>;

/** The write guard's part in a formation job: candidates masked before consolidation, operations before writing. */
export type FormationJobGuard = Pick<FormationGuard, 'operations' | 'candidates'>;

/**
 * The one place formed memories are written: passes what a window's operations write through the
 * write guard (masked by the tenant's policy like `add` and `update`; an operation the policy
 * refuses is dropped and counted in the job's result as `dropped`), embeds the masked texts and
 * applies the operations in the store's window transaction, which also marks the job succeeded
 * (all or nothing); answers the memories touched, after the change. Every fact formation adds,
 * refines, supersedes or confirms passes through here, so nothing an LLM proposed is written,
 * embedded or reported unmasked.
 *
 * @param guard @default none (nothing masked: for stores written without a facade)
 */
export async function writeFormedWindow(
  store: FormationStore,
  embed: EmbedTexts,
  job: WindowCompletion,
  operations: FormationOp[],
  context: ApplyContext,
  signal?: AbortSignal,
  guard?: OperationsGuard,
): Promise<ApplyResult> {
  let written = operations;
  let completion = job;
  if (guard !== undefined && operations.length > 0) {
    const guarded = await guard.operations(operations, context.tenant);
    written = guarded.operations;
    if (guarded.dropped.length > 0) {
      const dropped = (job.result.dropped ?? 0) + guarded.dropped.length;
      const result = { ...job.result, operations: written.length, dropped };
      completion = { ...job, result };
    }
  }
  const vectors = await vectorsFor(written, embed, context.scope);
  signal?.throwIfAborted();
  return store.completeWindow(completion, written, vectors, context);
}
