import type { Scope } from '../../model/scope.js';
import type { MemoryStore } from '../../store/memory-store.js';
import { maxCosines } from '../../vector/max-cosine.js';

/**
 * How far a store's cosine may lie from `maxCosine` over the stored vector. Stores report
 * the dot product of the two vectors rounded to unit float32 vectors: each rounding moves a
 * component by at most 2⁻²⁴ of itself, so the dot product moves by at most ≈ 1.2·10⁻⁷ (by
 * Cauchy–Schwarz). The margin leaves room for a backend that sums in float32.
 */
export const COSINE_SLACK = 1e-4;

/** Most ids scored in one store call; larger sets are read as vectors instead. */
const MAX_SCORED_IDS = 1000;

/** A store-computed cosine (best over the query vectors) and the row's last update. */
export interface StoreCosine {
  cosine: number;
  updatedAt?: string | undefined;
}

/**
 * The store's cosines of these rows (best over the query vectors), from its own dense search
 * restricted to the ids — one call per query vector, answered from a vector cache where there is
 * one. Within {@link COSINE_SLACK} of the exact value; rows the store cannot score (no vector of
 * this model) are absent.
 */
export async function storeCosines(
  store: MemoryStore,
  scope: Scope,
  model: string,
  ids: readonly string[],
  queryVectors: readonly Float32Array[],
): Promise<Map<string, StoreCosine>> {
  const out = new Map<string, StoreCosine>();
  if (ids.length === 0 || ids.length > MAX_SCORED_IDS || queryVectors.length === 0) return out;
  const filter = { scope, ids: [...ids] };
  const lists = await Promise.all(
    queryVectors.map((vector) => store.denseSearch({ filter, vector, model, limit: ids.length })),
  );
  if (lists.length === 1) {
    for (const row of lists[0] ?? []) out.set(row.id, { cosine: row.cosine, updatedAt: row.updatedAt });
    return out;
  }
  const seen = new Map<string, number>();
  for (const rows of lists) {
    for (const row of rows) {
      const known = out.get(row.id);
      seen.set(row.id, (seen.get(row.id) ?? 0) + 1);
      if (known === undefined) out.set(row.id, { cosine: row.cosine, updatedAt: row.updatedAt });
      else known.cosine = Math.max(known.cosine, row.cosine);
    }
  }
  // A best-of-all-vectors value needs every vector's cosine.
  for (const [id, n] of seen) if (n !== queryVectors.length) out.delete(id);
  return out;
}

/**
 * The exact cosines the per-path searcher gives rows no dense channel scored: `maxCosine`
 * of the stored vector over the query vectors, 0 for a row without a vector. One store call:
 * scored where the vectors are when the store can (`storedCosines`), else read and scored here.
 */
export async function vectorCosines(
  store: MemoryStore,
  tenant: string,
  ids: readonly string[],
  queryVectors: readonly Float32Array[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (ids.length === 0) return out;
  let found: ReadonlyMap<string, number>;
  if (store.storedCosines) found = await store.storedCosines(tenant, [...ids], queryVectors);
  else {
    const vectors = await store.getVectors(tenant, [...ids]);
    const held = ids.filter((id) => vectors.has(id));
    const cosines = maxCosines(
      held.map((id) => vectors.get(id) as Float32Array),
      queryVectors,
    );
    found = new Map(held.map((id, i) => [id, cosines[i] as number]));
  }
  for (const id of ids) out.set(id, found.get(id) ?? 0);
  return out;
}
