/**
 * Dense search with pgvector: candidates from the space's HNSW index with the scope's filters
 * applied inside the index scan, or from an exact scan when the scope is small; every candidate
 * re-scored exactly with the cosine all backends share, so scores equal app-side scoring.
 *
 * - Cut-over: an exact scan costs about `b·S` for a scope of S rows; a filtered HNSW walk visits
 *   about `fetch·P/S` index tuples when the scope is S of the P rows in the space's index, so it
 *   costs about `a·fetch·P/S`. They meet at `S* = sqrt((a/b)·fetch·P)`; `a/b` is measured
 *   (bench/store-pgvector.ts: users of 500–20,000 rows inside a 100k-row tenant, both paths
 *   forced) and P is the index's row estimate (`pg_class.reltuples`). One round trip counts the
 *   scope's rows up to S* + 1: up to S* the scan is exact (the planner reads the scope through the
 *   btree indexes and sorts by `embedding <=> q`, which no HNSW index matches); above, the HNSW
 *   index of the space is used. `exactMaxRows` replaces S* by a fixed number.
 * - Filters inside the scan: pgvector ≥ 0.8 iterative scans (`hnsw.iterative_scan =
 *   relaxed_order`) keep walking the graph until `fetch` rows passed the WHERE clause, up to
 *   `hnsw.max_scan_tuples` — so a small user inside a big tenant still gets a full pool. If the
 *   scan still comes back short (the cap was hit), the search falls back to the exact scan.
 * - Settings are `SET LOCAL` (the caller's transaction); on Citus they are propagated to the
 *   worker that runs the query (`citus.propagate_set_commands = 'local'`): `set_config()` and a
 *   plain `SET LOCAL` would stay on the coordinator.
 */
import type { Memory } from '../../model/memory.js';
import { unitVector } from '../../vector/unit-cosine.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type { DenseCandidate } from '../memory-store.js';
import type { SqlQueries } from '../sql/query-runner.js';
import { scoreVectorRows, type VectorRow } from '../sql/vector-rows.js';
import { inlineParams } from './pg-inline-params.js';
import { quoteIdent, quoteLiteral, type PgNames } from './pg-names.js';
import {
  denseIndexName,
  denseIndexShape,
  type DenseIndexShape,
  type EmbeddingSpace,
  type PgVectorCapabilities,
} from './pgvector-indexes.js';
import type { ScopeSizeCache } from './scope-size-cache.js';

/**
 * Formats a vector as pgvector text input, every float32 value exactly: 9 significant digits
 * always read back (pgvector parses with `strtof`) as the same float32. `String(x)` prints the
 * float64 widening of a float32 with up to 17 digits and took 0.3–0.6 ms per 512-dimension vector,
 * most of a bulk insert's client time; `toPrecision(9)` is 2–3× faster and a third shorter.
 */
export function toPgVectorLiteral(vector: Float32Array): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    out += (vector[i] as number).toPrecision(9);
  }
  return `${out}]`;
}

/** Tuning of {@link pgvectorDenseSearch}; the defaults come from bench/store-pgvector.ts. */
export interface PgVectorSearchTuning {
  /** Scan scopes of at most this many rows exactly, instead of the measured cut-over S*. */
  exactMaxRows?: number | undefined;
  /** `a/b` of the cut-over (HNSW cost per visited tuple / exact cost per row). @default 2.3 */
  cutoverRatio?: number | undefined;
  /** S* when the index has no row estimate yet (never analysed; a Citus coordinator). @default 2500 */
  defaultCutover?: number | undefined;
  /**
   * Candidates fetched per result before exact re-scoring: `max(limit * overFetch, limit + 30)`.
   * @default 2 where the index holds rounded vectors (`halfvec`); where it holds the float32 vectors
   * themselves its distances are the exact ones, so `limit` + {@link FETCH_MARGIN} rows
   */
  overFetch?: number | undefined;
  /** `hnsw.ef_search` lower bound (raised to the fetch size; pgvector caps it at 1000). @default 200 */
  efSearch?: number | undefined;
  /** `hnsw.max_scan_tuples` lower bound for iterative scans. @default 50000 */
  maxScanTuples?: number | undefined;
  /** Remembers which side of the cut-over a scope was on, so repeated searches skip the count. */
  scopeSizes?: ScopeSizeCache | undefined;
}

/** One dense search: the engine's compiled scope filter plus the query. */
export interface PgVectorSearchRequest {
  /** The scope filter as a WHERE fragment over `names.memories` (alias `m`) and its parameters ($1 …). */
  where: string;
  params: unknown[];
  space: EmbeddingSpace;
  /** The query vector (any length-`space.dim` finite vector; it is normalised here). */
  vector: Float32Array;
  limit: number;
  /** An upper bound on the rows the filter can match (an explicit id list), when the caller knows one. */
  maxRows?: number | undefined;
  /**
   * The scope the cut-over counts and remembers, when it differs from `where` (its own $1 …
   * parameters): the filter without its `validAt` instant, which changes with every query and
   * would make every search count again. Counting more rows than `where` matches only moves the
   * path, never the results (a short index scan falls back to the exact one). @default `where`
   */
  sizeScope?: { where: string; params: unknown[] } | undefined;
  /**
   * Where the HNSW walk's `SET LOCAL`s live. 'caller': `sql` is inside the caller's transaction.
   * Otherwise `sql` is outside any, and only the walk needs one (an exact scan is one statement):
   * 'one-query' sends the settings and the walk as one simple-protocol query (values inlined as
   * literals, pg-inline-params.ts; its implicit transaction scopes them) — one round trip;
   * 'own' wraps the walk in BEGIN (with the settings) … COMMIT — three (on Citus, where the
   * one-query form fails on the worker). @default 'caller'
   */
  transaction?: 'caller' | 'one-query' | 'own' | undefined;
  /** Selects each candidate's whole row too, made into its `memory` (and `updatedAt`) by this. @default rows not read */
  toMemory?: ((row: SelectedMemory) => Memory) | undefined;
}

/** How the candidates were found. */
export type PgVectorSearchPath = 'exact' | 'hnsw' | 'hnsw-short-exact';

/** Candidates best first (cosine, then id) and the path that produced them. */
export interface PgVectorSearchResult {
  candidates: DenseCandidate[];
  path: PgVectorSearchPath;
}

function positiveInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return value;
}

/**
 * Rows fetched beyond `limit` when the index's distances are exact (a `vector` index over the
 * float32 vectors). Then the walk's order already is the exact one, and fetching more only adds
 * rows: each costs its whole row and vector on the wire (about 0.1 ms a row at 512 dims,
 * bench/RESULTS-postgres.md), so a recall's pool of 50 fetched as 100 cost 6 ms of its 14. The
 * margin is for the filtered walks, where an iterative scan's later batches come in relaxed order.
 */
export const FETCH_MARGIN = 10;

/** Rows to fetch for `limit` results, given what the space's index holds. */
export function fetchSize(limit: number, indexType: DenseIndexShape['type'], tuning: PgVectorSearchTuning): number {
  if (indexType === 'vector' && tuning.overFetch === undefined) return limit + FETCH_MARGIN;
  return overFetched(limit, tuning.overFetch);
}

/** `max(limit · overFetch, limit + 30)`: the fetch of an index whose distances are rounded. */
function overFetched(limit: number, overFetch = 2): number {
  return Math.max(limit * overFetch, limit + 30);
}

/** The SET LOCAL statements of an HNSW search (integers validated, so inlined). */
function hnswSettings(caps: PgVectorCapabilities, fetch: number, tuning: PgVectorSearchTuning): string[] {
  const ef = Math.min(1000, Math.max(positiveInt(tuning.efSearch ?? DEFAULT_EF_SEARCH, 'efSearch'), fetch));
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
 * `hnsw.ef_search` by default: on 100k LoCoMo-derived rows (bench/store-pgvector.ts, 200
 * questions) 200 kept the top-10 equal to the exact one in 98% of queries (400: 100%, 150: 94.5%)
 * at half the walk's cost of 400.
 */
export const DEFAULT_EF_SEARCH = 200;

/** Bounds of the cut-over: below 200 rows exact is always cheap; counting past 50,000 is not. */
export const CUTOVER_MIN = 200;
const CUTOVER_MAX = 50_000;

/**
 * The cut-over S* as an SQL expression (P from the index statistics, in the same statement as
 * the bounded count), or the fixed `exactMaxRows`.
 */
function cutoverSql(names: PgNames, index: string, fetch: number, tuning: PgVectorSearchTuning): string {
  if (tuning.exactMaxRows !== undefined) return String(positiveInt(tuning.exactMaxRows, 'exactMaxRows'));
  const ratio = tuning.cutoverRatio ?? 2.3;
  const fallback = positiveInt(tuning.defaultCutover ?? 2500, 'defaultCutover');
  if (!(ratio > 0 && Number.isFinite(ratio))) throw new RangeError('cutoverRatio must be a positive number');
  const estimate = `(SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass(${quoteLiteral(`${names.schema}.${quoteIdent(index)}`)}))`;
  return `(SELECT CASE WHEN coalesce(${estimate}, -1) <= 0 THEN ${fallback}
                  ELSE least(${CUTOVER_MAX}, greatest(${CUTOVER_MIN}, ceil(sqrt(${ratio} * ${fetch} * ${estimate}))))::int END)`;
}

/**
 * Dense candidates of one scope. `sql` must be inside a transaction (the HNSW path uses
 * `SET LOCAL`), except with `transaction` 'one-query' or 'own', or for a request bounded by `maxRows` ≤ {@link CUTOVER_MIN}
 * (always exact, one statement); `caps` from {@link detectPgVector}. The space must have an `embedding` column
 * and, for the HNSW path, its index (pgvector-indexes.ts); a space pgvector cannot index is
 * always scanned exactly.
 */
export async function pgvectorDenseSearch(
  sql: SqlQueries,
  names: PgNames,
  caps: PgVectorCapabilities,
  request: PgVectorSearchRequest,
  tuning: PgVectorSearchTuning = {},
): Promise<PgVectorSearchResult> {
  const { space, limit } = request;
  const unit = unitVector(request.vector);
  if (unit === null || limit <= 0 || request.vector.length !== space.dim) return { candidates: [], path: 'exact' };
  const shape = denseIndexShape(space);
  const fetch = fetchSize(limit, shape.type, tuning);
  const params = [...request.params, space.model, space.dim];
  const base = `${request.where} AND m.embed_model = $${params.length - 1} AND m.embed_dim = $${params.length} AND m.embedding IS NOT NULL`;
  params.push(toPgVectorLiteral(request.vector), fetch);
  const q = `$${params.length - 1}`;
  const lim = `$${params.length}`;

  const { toMemory } = request;
  const columns = toMemory
    ? `${MEMORY_SELECT}, m.vector AS vector`
    : 'm.id AS id, m.vector AS vector, m.embed_dim AS embed_dim';
  const select = `SELECT ${columns} FROM ${names.memories} m WHERE ${base}`;
  type Row = VectorRow & SelectedMemory;
  const attach = toMemory
    ? (row: Row): Partial<DenseCandidate> => {
        const memory = toMemory(row);
        return { memory, updatedAt: memory.updatedAt };
      }
    : undefined;
  const score = (rows: Row[]): DenseCandidate[] => scoreVectorRows(rows, unit, limit, attach);
  const exact = async (): Promise<DenseCandidate[]> =>
    score(await sql.all<Row>(`${select} ORDER BY m.embedding <=> ${q}::vector, m.id LIMIT ${lim}`, params));

  const bounded = request.maxRows !== undefined && request.maxRows <= CUTOVER_MIN;
  if (shape.type === null || bounded) return { candidates: await exact(), path: 'exact' };
  const sized = request.sizeScope ?? { where: request.where, params: request.params };
  const sizeParams = [...sized.params, space.model, space.dim];
  const sizeBase = `${sized.where} AND m.embed_model = $${sizeParams.length - 1} AND m.embed_dim = $${sizeParams.length} AND m.embedding IS NOT NULL`;
  const cacheKey = `${names.memories}\u0000${sizeBase}\u0000${fetch}\u0000${JSON.stringify(sizeParams)}`;
  let side = tuning.scopeSizes?.get(cacheKey);
  if (side === undefined) {
    // The cut-over's ratio a/b was measured with the walk fetching max(2·limit, limit + 30) rows
    // at ef_search 400; it stays where it was measured (bench/store-pgvector.ts re-measures it).
    const cutoverFetch = overFetched(limit);
    const cutover = cutoverSql(names, denseIndexName(names.prefix, space), cutoverFetch, tuning);
    const counted = await sql.all<{ n: number; cutover: number }>(
      `WITH c AS (SELECT ${cutover} AS cutover)
       SELECT (SELECT count(*)::int FROM (SELECT 1 FROM ${names.memories} m WHERE ${sizeBase} LIMIT (SELECT cutover + 1 FROM c)) AS s) AS n,
              (SELECT cutover FROM c) AS cutover`,
      sizeParams,
    );
    const n = counted[0]?.n ?? 0;
    side = { small: n <= (counted[0]?.cutover ?? 0), n };
    tuning.scopeSizes?.set(cacheKey, side);
  }
  if (side.small) return { candidates: await exact(), path: 'exact' };
  const n = side.n;

  const cast = `::${shape.type}(${space.dim})`;
  const statement = `${select} AND ${shape.predicate} ORDER BY m.embedding${cast} <=> ${q}${cast} LIMIT ${lim}`;
  const settings = hnswSettings(caps, fetch, tuning).join('; ');
  const mode = request.transaction ?? 'caller';
  let hnsw: Row[];
  if (mode === 'one-query') {
    // The settings and the search in one simple query: its implicit transaction scopes SET LOCAL.
    hnsw = await sql.all<Row>(`${settings}; ${inlineParams(statement, params)}`, []);
  } else if (mode === 'own') {
    await sql.run(`BEGIN; ${settings}`, []);
    try {
      hnsw = await sql.all<Row>(statement, params);
    } catch (error) {
      await Promise.resolve(sql.run('ROLLBACK', [])).catch(() => undefined);
      throw error;
    }
    await sql.run('COMMIT', []);
  } else {
    // One round trip for every setting (a multi-statement simple query; no parameters).
    await sql.run(settings, []);
    hnsw = await sql.all<Row>(statement, params);
  }
  // More than the cut-over's rows exist, so fewer than min(fetch, n) means the scan hit its cap.
  if (hnsw.length < Math.min(fetch, n)) {
    if (mode === 'caller') await sql.run('SET LOCAL enable_sort = on', []);
    return { candidates: await exact(), path: 'hnsw-short-exact' };
  }
  return { candidates: score(hnsw), path: 'hnsw' };
}
