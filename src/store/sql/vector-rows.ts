import { EngramError } from '../../model/errors.js';
import { topK } from '../../vector/top-k.js';
import { unitDot, unitVector } from '../../vector/unit-cosine.js';
import type { DenseCandidate } from '../memory-store.js';
import { decodeVector } from '../vector-codec.js';
import type { SqlParams } from './sql-dialect.js';

/** A stored vector as selected: little-endian float32 bytes and the row's dimension. */
export interface VectorRow {
  id: string;
  vector: Uint8Array;
  embed_dim: number | null;
}

/**
 * Decodes the vectors of {@link MemoryStore.getVectors}. Throws CORRUPT_VECTOR naming every row
 * whose bytes do not match its dimension (`details.ids`).
 */
export function decodeVectorRows(rows: Iterable<VectorRow>): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  const corrupt: string[] = [];
  for (const row of rows) {
    try {
      out.set(row.id, decodeVector(row.vector, row.embed_dim, row.id));
    } catch {
      corrupt.push(row.id);
    }
  }
  if (corrupt.length > 0) {
    throw new EngramError('CORRUPT_VECTOR', `stored vector of ${corrupt.join(', ')} has the wrong byte length`, {
      details: { ids: corrupt },
    });
  }
  return out;
}

/** Best first, ties by id: the order of every dense search. */
export function compareDense(a: DenseCandidate, b: DenseCandidate): number {
  return b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The shared unit-vector cosine (`src/vector/unit-cosine.ts`) of a stored vector with a unit
 * query, or null when its bytes are not `unit.length` float32 values (corrupt, or of another
 * dimension). `scratch` is a buffer of `unit.length` values.
 */
export function storedCosine(row: VectorRow, unit: Float32Array, scratch: Float32Array): number | null {
  if (row.vector.byteLength !== unit.length * 4) return null;
  const v = decodeVector(row.vector, unit.length, row.id);
  return unitVector(v, scratch) === null ? 0 : unitDot(scratch, unit);
}

/**
 * The exact top-`limit` of rows against a unit query vector, with {@link storedCosine}. Rows it
 * cannot score are skipped, as dense search skips them on every backend. `attach` adds what else
 * the caller selected to each returned candidate (its row), only for the top `limit`.
 */
export function scoreVectorRows<R extends VectorRow>(
  rows: Iterable<R>,
  unit: Float32Array,
  limit: number,
  attach?: (row: R) => Partial<DenseCandidate>,
): DenseCandidate[] {
  const scratch = new Float32Array(unit.length);
  const scored: Array<DenseCandidate & { row: R }> = [];
  for (const row of rows) {
    const cosine = storedCosine(row, unit, scratch);
    if (cosine !== null) scored.push({ id: row.id, cosine, row });
  }
  return topK(scored, limit, compareDense).map(({ row, ...c }) => (attach ? { ...c, ...attach(row) } : c));
}

/**
 * The exact scan of dense search done in the application: every stored vector of the query's
 * model and dimension among the rows the filter matches, as {@link VectorRow}s for
 * {@link scoreVectorRows}. `where` is the filter's condition, built with the same `params`.
 */
export function vectorScanSql(table: string, where: string, model: string, dim: number, params: SqlParams): string {
  return `SELECT m.id AS id, m.vector AS vector, m.embed_dim AS embed_dim FROM ${table} m
    WHERE ${where} AND m.embed_model = ${params.add(model)} AND m.embed_dim = ${params.add(dim)} AND m.vector IS NOT NULL`;
}
