import type { JsonObject } from '../../model/json.js';
import type { Memory, MemorySource } from '../../model/memory.js';
import { MEMORY_COLUMN_NAMES, memoryFromColumns, type MemoryColumns } from '../memory-from-columns.js';

/** A row of `engram_memories` as node-postgres returns it: arrays and jsonb already decoded. */
export type PgMemoryRow = MemoryColumns<string[], unknown>;

/** The columns selected for a memory (never the vector bytes or the tsvector). */
export const MEMORY_COLUMNS = MEMORY_COLUMN_NAMES.join(', ');

/** Builds the public {@link Memory} from a row; absent scope fields stay absent. */
export function rowToMemory(row: PgMemoryRow): Memory {
  return memoryFromColumns(row, {
    tags: row.tags,
    sources: row.sources as MemorySource[],
    metadata: row.metadata as JsonObject,
  });
}

/** Formats a vector as pgvector text input; float32 values print exactly. */
export function toPgVectorLiteral(vector: Float32Array): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    out += String(vector[i]);
  }
  return `${out}]`;
}
