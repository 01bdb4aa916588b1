import { unitVector } from '../../vector/unit-cosine.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type { LexicalCandidate, LexicalQuery } from '../memory-store.js';
import { filterWhere, spaceWhere } from '../sql/filter-where.js';
import type { SqlDialect } from '../sql/sql-dialect.js';
import { storedCosine, type VectorRow } from '../sql/vector-rows.js';

/** One full-text search as SQL: the statement, its parameters and how its rows become candidates. */
export interface PgLexicalStatement {
  sql: string;
  params: unknown[];
  candidates(rows: LexicalRow[]): LexicalCandidate[];
}

/** A row of the statement (the extra columns when asked for). */
export type LexicalRow = { id: string; score: number; updated_at?: string } & Partial<VectorRow> &
  Partial<SelectedMemory>;

/**
 * The full-text channel's statement: rows matching `tsquery` ranked by `ts_rank`, ties by id. A
 * round trip to the server is what a recall pays most for, so the statement also returns what the
 * query asks for beside the ranks (`withRows`: the whole rows; `scoreWith`: the stored vector,
 * scored here with the cosine dense search uses, and the last update), and the recall reads
 * nothing more for these candidates.
 */
export function pgLexicalStatement(
  query: LexicalQuery,
  tsquery: string,
  context: { dialect: SqlDialect; table: string },
): PgLexicalStatement {
  const { dialect, table } = context;
  const params = dialect.params();
  const where = filterWhere(query.filter, dialect, params) + spaceWhere(query.space, params);
  const q = `to_tsquery('simple', ${params.add(tsquery)})`;
  const unit = query.scoreWith === undefined ? null : unitVector(query.scoreWith);
  const ranked = `SELECT m.id AS id, ts_rank(m.fts, ${q})::float8 AS score FROM ${table} m
      WHERE ${where} AND m.fts @@ ${q} ORDER BY score DESC, m.id LIMIT ${params.add(query.limit)}`;
  const columns: string[] = [];
  if (query.withRows) columns.push(MEMORY_SELECT);
  if (unit !== null)
    columns.push(
      'm.vector AS vector',
      ...(query.withRows ? [] : ['m.embed_dim AS embed_dim', 'm.updated_at AS updated_at']),
    );
  // The extra columns of the kept rows only: ranked alone first, every matching row stays narrow.
  const sql =
    columns.length === 0
      ? ranked
      : `WITH top AS (${ranked})
      SELECT ${columns.join(', ')}, top.id AS id, top.score AS score FROM top
      JOIN ${table} m ON m.tenant = ${params.add(query.filter.scope.tenant)} AND m.id = top.id
      ORDER BY top.score DESC, top.id`;
  const candidates = (rows: LexicalRow[]): LexicalCandidate[] => {
    const scratch = unit === null ? null : new Float32Array(unit.length);
    return rows.map((row) => {
      const out: LexicalCandidate = { id: row.id, score: row.score };
      if (query.withRows) {
        out.memory = dialect.toMemory(row as SelectedMemory);
        out.updatedAt = out.memory.updatedAt;
      }
      if (unit !== null && scratch !== null && row.vector !== undefined) {
        const cosine = storedCosine(row as VectorRow, unit, scratch);
        if (cosine !== null) {
          out.cosine = cosine;
          out.updatedAt ??= row.updated_at;
        }
      }
      return out;
    });
  };
  return { sql, params: params.values, candidates };
}
