import type { JsonObject } from '../../model/json.js';
import type { Memory, MemorySource } from '../../model/memory.js';
import type { MemoryLevel, MemoryStatus, MemoryType } from '../../model/memory-type.js';
import { scopeFromColumns } from '../scope-from-columns.js';

/** A `memories` row without the vector blob. */
export interface MemoryRow {
  pk: number;
  tenant: string;
  id: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  collection: string | null;
  type: string;
  key: string | null;
  tags: string;
  level: string | null;
  summary: string | null;
  background: string | null;
  sources: string;
  metadata: string;
  text: string;
  stated_at: string | null;
  created_at: string;
  updated_at: string;
  status: string;
  use_count: number;
  last_used_at: string | null;
  embed_model: string | null;
  embed_dim: number | null;
}

/** Column list matching {@link MemoryRow}, qualified with alias `m`. */
export const MEMORY_COLUMNS = [
  'pk',
  'tenant',
  'id',
  'user_id',
  'agent_id',
  'session_id',
  'collection',
  'type',
  'key',
  'tags',
  'level',
  'summary',
  'background',
  'sources',
  'metadata',
  'text',
  'stated_at',
  'created_at',
  'updated_at',
  'status',
  'use_count',
  'last_used_at',
  'embed_model',
  'embed_dim',
]
  .map((c) => `m.${c}`)
  .join(', ');

function parseJson<T>(raw: string, fallback: T): T {
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

/** Turns a row into the public {@link Memory} shape. Absent scope fields are left out. */
export function rowToMemory(row: MemoryRow): Memory {
  const scope = scopeFromColumns(row);
  return {
    id: row.id,
    text: row.text,
    type: row.type as MemoryType,
    key: row.key,
    tags: parseJson<string[]>(row.tags, []),
    level: row.level as MemoryLevel | null,
    summary: row.summary,
    background: row.background,
    sources: parseJson<MemorySource[]>(row.sources, []),
    scope,
    metadata: parseJson<JsonObject>(row.metadata, {}),
    statedAt: row.stated_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status as MemoryStatus,
    usage: { count: row.use_count, lastUsedAt: row.last_used_at },
    embedding:
      row.embed_model !== null && row.embed_dim !== null ? { model: row.embed_model, dim: row.embed_dim } : null,
  };
}
