/**
 * Dense search with pgvector: candidates from the space's HNSW index with the scope's filters
 * applied inside the index scan, or from an exact scan when the scope is small; every candidate
 * re-scored exactly with the cosine all backends share, so scores equal app-side scoring.
 *
 * - Cut-over: a bounded count of the scope's rows in the space (`LIMIT exactMaxRows + 1`, an
 *   index range on tenant/user). Up to `exactMaxRows` rows the scan is exact (the planner reads
 *   the scope through the btree indexes and sorts by `embedding <=> q`, which no HNSW index
 *   matches); above, the HNSW index of the space is used.
 * - Filters inside the scan: pgvector ≥ 0.8 iterative scans (`hnsw.iterative_scan =
 *   relaxed_order`) keep walking the graph until `fetch` rows passed the WHERE clause, up to
 *   `hnsw.max_scan_tuples` — so a small user inside a big tenant still gets a full pool. If the
 *   scan still comes back short (the cap was hit), the search falls back to the exact scan.
 * - Settings are `SET LOCAL` (the caller's transaction); on Citus they are propagated to the
 *   worker that runs the query (`citus.propagate_set_commands = 'local'`): `set_config()` and a
 *   plain `SET LOCAL` would stay on the coordinator.
 */
import type { DenseCandidate } from '../memory-store.js';
import { decodeVector } from '../vector-codec.js';
import { topK } from '../../vector/top-k.js';
import { unitDot, unitVector } from '../../vector/unit-cosine.js';
import type { PgNames } from './pg-migrations.js';
import { toPgVectorLiteral } from './pg-row-mapper.js';
import { denseIndexShape, type EmbeddingSpace, type PgVectorCapabilities } from './pgvector-indexes.js';
import type { SqlRunner } from './sql-runner.js';

/** Tuning of {@link pgvectorDenseSearch}; the defaults come from bench/store-pgvector.ts. */
export interface PgVectorSearchTuning {
  /** Scopes with at most this many rows in the space are scanned exactly. @default 5000 */
  exactMaxRows?: number | undefined;
  /** Candidates fetched per result before exact re-scoring: `max(limit * overFetch, limit + 30)`. @default 4 */
  overFetch?: number | undefined;
  /** `hnsw.ef_search` lower bound (raised to the fetch size; pgvector caps it at 1000). @default 200 */
  efSearch?: number | undefined;
  /** `hnsw.max_scan_tuples` lower bound for iterative scans. @default 50000 */
  maxScanTuples?: number | undefined;
}

/** One dense search: the engine's compiled scope filter plus the query. */
export interface PgVectorSearchRequest {
  /** The scope filter as a WHERE fragment over `names.memories` and its parameters ($1 …). */
  where: string;
  params: unknown[];
  space: EmbeddingSpace;
  /** The query vector (any length-`space.dim` finite vector; it is normalised here). */
  vector: Float32Array;
  limit: number;
}

/** How the candidates were found. */
export type PgVectorSearchPath = 'exact' | 'hnsw' | 'hnsw-short-exact';

/** Candidates best first (cosine, then id) and the path that produced them. */
export interface PgVectorSearchResult {
  candidates: DenseCandidate[];
  path: PgVectorSearchPath;
}

interface VectorRow {
  id: string;
  vector: Buffer;
  embed_dim: number | null;
}

function compareDense(a: DenseCandidate, b: DenseCandidate): number {
  return b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Exact re-score with the shared unit-vector cosine, best `limit` first. */
export function rescoreExactly(rows: readonly VectorRow[], unit: Float32Array, limit: number): DenseCandidate[] {
  const scratch = new Float32Array(unit.length);
  const scored: DenseCandidate[] = [];
  for (const row of rows) {
    const v = decodeVector(row.vector, row.embed_dim, row.id);
    if (v.length !== unit.length) continue;
    scored.push({ id: row.id, cosine: unitVector(v, scratch) === null ? 0 : unitDot(scratch, unit) });
  }
  return topK(scored, limit, compareDense);
}

function positiveInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return value;
}

/** The SET LOCAL statements of an HNSW search (integers validated, so inlined). */
function hnswSettings(caps: PgVectorCapabilities, fetch: number, tuning: PgVectorSearchTuning): string[] {
  const ef = Math.min(1000, Math.max(positiveInt(tuning.efSearch ?? 200, 'efSearch'), fetch));
  const maxTuples = Math.max(positiveInt(tuning.maxScanTuples ?? 50_000, 'maxScanTuples'), fetch * 100);
  const out: string[] = [];
  if (caps.citus) out.push(`SET LOCAL citus.propagate_set_commands = 'local'`);
  out.push(`SET LOCAL hnsw.ef_search = ${ef}`);
  if (caps.iterativeScan) {
    out.push(`SET LOCAL hnsw.iterative_scan = relaxed_order`, `SET LOCAL hnsw.max_scan_tuples = ${maxTuples}`);
  }
  // The planner's cost model often prefers the tenant btree plus a sort; with sorts and other
  // scans disabled only the HNSW index (rows in distance order) is left without the penalty.
  out.push(`SET LOCAL enable_seqscan = off`, `SET LOCAL enable_bitmapscan = off`, `SET LOCAL enable_sort = off`);
  return out;
}

/**
 * Dense candidates of one scope. `runner` must be inside a transaction (the HNSW path uses
 * `SET LOCAL`); `caps` from {@link detectPgVector}. The space must have an `embedding` column
 * and, for the HNSW path, its index (pgvector-indexes.ts); a space pgvector cannot index is
 * always scanned exactly.
 */
export async function pgvectorDenseSearch(
  runner: SqlRunner,
  names: PgNames,
  caps: PgVectorCapabilities,
  request: PgVectorSearchRequest,
  tuning: PgVectorSearchTuning = {},
): Promise<PgVectorSearchResult> {
  const { space, limit } = request;
  const unit = unitVector(request.vector);
  if (unit === null || limit <= 0 || request.vector.length !== space.dim) return { candidates: [], path: 'exact' };
  const exactMax = positiveInt(tuning.exactMaxRows ?? 5000, 'exactMaxRows');
  const fetch = Math.max(limit * (tuning.overFetch ?? 4), limit + 30);
  const shape = denseIndexShape(space);
  const params = [...request.params, space.model, space.dim];
  const base = `${request.where} AND embed_model = $${params.length - 1} AND embed_dim = $${params.length} AND embedding IS NOT NULL`;
  params.push(toPgVectorLiteral(request.vector), fetch);
  const q = `$${params.length - 1}`;
  const lim = `$${params.length}`;

  const exact = async (): Promise<VectorRow[]> =>
    (
      await runner.query<VectorRow>(
        `SELECT id, vector, embed_dim FROM ${names.memories} WHERE ${base} ORDER BY embedding <=> ${q}::vector, id LIMIT ${lim}`,
        params,
      )
    ).rows;

  let small = shape.type === null;
  if (!small) {
    const counted = await runner.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${names.memories} WHERE ${base} LIMIT ${exactMax + 1}) AS s`,
      params.slice(0, params.length - 2),
    );
    small = (counted.rows[0]?.n ?? 0) <= exactMax;
  }
  if (small) return { candidates: rescoreExactly(await exact(), unit, limit), path: 'exact' };

  for (const statement of hnswSettings(caps, fetch, tuning)) await runner.query(statement);
  const cast = `::${shape.type}(${space.dim})`;
  const hnsw = await runner.query<VectorRow>(
    `SELECT id, vector, embed_dim FROM ${names.memories} WHERE ${base} AND ${shape.predicate}
      ORDER BY embedding${cast} <=> ${q}${cast} LIMIT ${lim}`,
    params,
  );
  // More rows than exactMax ≥ fetch exist, so a short answer means the scan hit its cap.
  if (hnsw.rows.length < Math.min(fetch, exactMax + 1)) {
    await runner.query('SET LOCAL enable_sort = on');
    return { candidates: rescoreExactly(await exact(), unit, limit), path: 'hnsw-short-exact' };
  }
  return { candidates: rescoreExactly(hnsw.rows, unit, limit), path: 'hnsw' };
}
