import type { JsonObject } from '../model/json.js';
import type { Memory, MemorySource } from '../model/memory.js';
import {
  MEMORY_LEVELS,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  type MemoryLevel,
  type MemoryStatus,
  type MemoryType,
} from '../model/memory-type.js';
import type { Scope } from '../model/scope.js';
import { knownLiteral } from '../util/known-literal.js';

/** The scope columns every backend stores; null means "not set". */
export interface ScopeColumns {
  tenant: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  collection: string | null;
}

/**
 * A memory row as every backend selects it (never the vector or the full-text columns). `Tags`
 * and `Json` are how the list and JSON columns arrive: text in SQLite, decoded by PostgreSQL.
 */
export interface MemoryColumns<Tags, Json> extends ScopeColumns {
  id: string;
  type: string;
  key: string | null;
  tags: Tags;
  level: string | null;
  summary: string | null;
  background: string | null;
  sources: Json;
  metadata: Json;
  text: string;
  stated_at: string | null;
  created_at: string;
  updated_at: string;
  status: string;
  use_count: number;
  last_used_at: string | null;
  embed_model: string | null;
  embed_dim: number | null;
  /** Null only on rows a migration could not read a time from (they read as `statedAt ?? createdAt`). */
  valid_from: string | null;
  valid_to: string | null;
  superseded_by: string | null;
  version: number;
}

/** The column names of {@link MemoryColumns}, in one place for every backend's SELECT. */
export const MEMORY_COLUMN_NAMES = [
  'tenant',
  'user_id',
  'id',
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
  'valid_from',
  'valid_to',
  'superseded_by',
  'version',
] as const satisfies ReadonlyArray<keyof MemoryColumns<unknown, unknown>>;

/** A selected memory row before its list and JSON columns are decoded (the dialect decodes them). */
export type SelectedMemory = MemoryColumns<unknown, unknown>;

/** The select list of a memory over alias `m` (never the vector or the full-text columns). */
export const MEMORY_SELECT = MEMORY_COLUMN_NAMES.map((c) => `m.${c}`).join(', ');

/** The public {@link Scope} of a row: absent scope fields stay absent (not null). */
export function scopeFromColumns(row: ScopeColumns): Scope {
  const scope: Scope = { tenant: row.tenant };
  if (row.user_id !== null) scope.user = row.user_id;
  if (row.agent_id !== null) scope.agent = row.agent_id;
  if (row.session_id !== null) scope.session = row.session_id;
  if (row.collection !== null) scope.collection = row.collection;
  return scope;
}

/** The public {@link Memory} of a row, given its list and JSON columns already decoded. */
export function memoryFromColumns(
  row: MemoryColumns<unknown, unknown>,
  decoded: { tags: string[]; sources: MemorySource[]; metadata: JsonObject },
): Memory {
  return {
    id: row.id,
    text: row.text,
    type: knownLiteral(row.type, MEMORY_TYPES) as MemoryType,
    key: row.key,
    tags: decoded.tags,
    level: row.level === null ? null : (knownLiteral(row.level, MEMORY_LEVELS) as MemoryLevel),
    summary: row.summary,
    background: row.background,
    sources: decoded.sources,
    scope: scopeFromColumns(row),
    metadata: decoded.metadata,
    statedAt: row.stated_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: knownLiteral(row.status, MEMORY_STATUSES) as MemoryStatus,
    usage: { count: row.use_count, lastUsedAt: row.last_used_at },
    embedding:
      row.embed_model !== null && row.embed_dim !== null ? { model: row.embed_model, dim: row.embed_dim } : null,
    validFrom: row.valid_from ?? row.stated_at ?? row.created_at,
    validTo: row.valid_to,
    supersededBy: row.superseded_by,
    version: Number(row.version),
  };
}
