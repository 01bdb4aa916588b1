import type { JsonObject } from '../../model/json.js';
import type { Memory, MemorySource } from '../../model/memory.js';
import { MEMORY_COLUMN_NAMES, memoryFromColumns, type MemoryColumns } from '../memory-from-columns.js';

/** A `memories` row without the vector blob: tags, sources and metadata as JSON text. */
export type MemoryRow = MemoryColumns<string, string> & { pk: number };

/** Column list matching {@link MemoryRow}, qualified with alias `m`. */
export const MEMORY_COLUMNS = ['pk', ...MEMORY_COLUMN_NAMES].map((c) => `m.${c}`).join(', ');

function parseJson<T>(raw: string, fallback: T): T {
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

/** Turns a row into the public {@link Memory} shape. Absent scope fields are left out. */
export function rowToMemory(row: MemoryRow): Memory {
  return memoryFromColumns(row, {
    tags: parseJson<string[]>(row.tags, []),
    sources: parseJson<MemorySource[]>(row.sources, []),
    metadata: parseJson<JsonObject>(row.metadata, {}),
  });
}
