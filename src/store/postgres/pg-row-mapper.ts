import type { JsonObject } from '../../model/json.js';
import type { Memory, MemorySource } from '../../model/memory.js';
import type { MemoryLevel, MemoryStatus, MemoryType } from '../../model/memory-type.js';
import { scopeFromColumns } from '../scope-from-columns.js';

/** A row of `engram_memories` as node-postgres returns it (without `vector`, `fts`, `embedding`). */
export interface PgMemoryRow {
  tenant: string;
  user_id: string | null;
  id: string;
  agent_id: string | null;
  session_id: string | null;
  collection: string | null;
  type: string;
  key: string | null;
  tags: string[];
  level: string | null;
  summary: string | null;
  background: string | null;
  sources: unknown;
  metadata: unknown;
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

/** The columns selected for a memory (never the vector bytes or the tsvector). */
export const MEMORY_COLUMNS =
  'tenant, user_id, id, agent_id, session_id, collection, type, key, tags, level, summary, background, sources, metadata, text, stated_at, created_at, updated_at, status, use_count, last_used_at, embed_model, embed_dim';

/** Builds the public {@link Memory} from a row; absent scope fields stay absent. */
export function rowToMemory(row: PgMemoryRow): Memory {
  const scope = scopeFromColumns(row);
  return {
    id: row.id,
    text: row.text,
    type: row.type as MemoryType,
    key: row.key,
    tags: row.tags,
    level: row.level as MemoryLevel | null,
    summary: row.summary,
    background: row.background,
    sources: row.sources as MemorySource[],
    scope,
    metadata: row.metadata as JsonObject,
    statedAt: row.stated_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status as MemoryStatus,
    usage: { count: row.use_count, lastUsedAt: row.last_used_at },
    embedding:
      row.embed_model !== null && row.embed_dim !== null ? { model: row.embed_model, dim: row.embed_dim } : null,
  };
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
