import type { EpisodeSource, TurnRole } from '../../model/formation/episode.js';
import { canonicalInstant, canonicalOrNull } from '../instant.js';
import type { MemoryRecord, StorePatch, StoreVector } from '../memory-store.js';
import { encodeVector } from '../vector-codec.js';
import type { ColumnKind, SqlDialect, SqlParams } from './sql-dialect.js';

/** What an episode row stores beside its memory columns (the `episode` JSON column). */
export interface EpisodeDocument {
  role: TurnRole;
  speaker: string | null;
  session: string | null;
  messageId: string | null;
  occurredAt: string;
  sources: EpisodeSource[];
}

/** The episode columns of a memory row that is an episode (null on every other row). */
export interface EpisodeColumns {
  /** `episodeScopeKey(scope)`: the exact scope episodes merge within. */
  scopeKey: string;
  textKey: string;
  mergeable: boolean;
  seenCount: number;
  document: EpisodeDocument;
}

/** A record as the engine writes it: a {@link MemoryRecord}, and its episode columns when it is one. */
export interface StoredRecord extends MemoryRecord {
  episode?: EpisodeColumns | undefined;
}

/**
 * A change as the engine writes it: a {@link StorePatch} plus what only the engine sets (the
 * version, world-time validity, an episode's count and document).
 */
export interface RowPatch extends StorePatch {
  validFrom?: string | undefined;
  validTo?: string | null | undefined;
  supersededBy?: string | null | undefined;
  version?: number | undefined;
  seenCount?: number | undefined;
  episode?: EpisodeDocument | undefined;
}

/** A column every backend writes from a record on insert. */
export interface RecordColumn {
  column: string;
  kind: ColumnKind;
  value: (record: StoredRecord) => unknown;
}

/** When a record became true, as stored: its own `validFrom`, else `statedAt`, else `createdAt`. */
export function storedValidFrom(record: MemoryRecord): string {
  return canonicalInstant(record.validFrom ?? record.statedAt ?? record.createdAt);
}

/**
 * The stored columns of a memory, in one place for every backend's INSERT (use count and last
 * use start at their defaults). A new field (e.g. world-time validity) is one entry here, one in
 * {@link PATCH_COLUMNS} if it can change, one in `memory-from-columns.ts`, and a migration per
 * backend.
 */
export const RECORD_COLUMNS: readonly RecordColumn[] = [
  { column: 'tenant', kind: 'text', value: (r) => r.scope.tenant },
  { column: 'id', kind: 'text', value: (r) => r.id },
  { column: 'user_id', kind: 'text', value: (r) => r.scope.user ?? null },
  { column: 'agent_id', kind: 'text', value: (r) => r.scope.agent ?? null },
  { column: 'session_id', kind: 'text', value: (r) => r.scope.session ?? null },
  { column: 'collection', kind: 'text', value: (r) => r.scope.collection ?? null },
  { column: 'type', kind: 'text', value: (r) => r.type },
  { column: 'key', kind: 'text', value: (r) => r.key ?? null },
  { column: 'tags', kind: 'tags', value: (r) => r.tags },
  { column: 'level', kind: 'text', value: (r) => r.level ?? null },
  { column: 'summary', kind: 'text', value: (r) => r.summary ?? null },
  { column: 'background', kind: 'text', value: (r) => r.background ?? null },
  { column: 'sources', kind: 'json', value: (r) => r.sources },
  { column: 'metadata', kind: 'json', value: (r) => r.metadata },
  { column: 'text', kind: 'text', value: (r) => r.text },
  { column: 'stated_at', kind: 'text', value: (r) => r.statedAt ?? null },
  { column: 'created_at', kind: 'text', value: (r) => r.createdAt },
  { column: 'updated_at', kind: 'text', value: (r) => r.updatedAt },
  { column: 'status', kind: 'text', value: (r) => r.status },
  { column: 'embed_model', kind: 'text', value: (r) => (r.vector ? (r.embedding?.model ?? null) : null) },
  { column: 'embed_dim', kind: 'int', value: (r) => (r.vector ? (r.embedding?.dim ?? null) : null) },
  { column: 'vector', kind: 'bytes', value: (r) => (r.vector ? encodeVector(r.vector) : null) },
  { column: 'valid_from', kind: 'text', value: storedValidFrom },
  { column: 'valid_to', kind: 'text', value: (r) => canonicalOrNull(r.validTo) },
  { column: 'superseded_by', kind: 'text', value: (r) => r.supersededBy ?? null },
  { column: 'version', kind: 'int', value: (r) => r.version ?? 1 },
  { column: 'scope_key', kind: 'text', value: (r) => r.episode?.scopeKey ?? null },
  { column: 'text_key', kind: 'text', value: (r) => r.episode?.textKey ?? null },
  { column: 'mergeable', kind: 'int', value: (r) => (r.episode === undefined ? null : r.episode.mergeable ? 1 : 0) },
  { column: 'seen_count', kind: 'int', value: (r) => r.episode?.seenCount ?? null },
  { column: 'episode', kind: 'json', value: (r) => r.episode?.document ?? null },
];

/** The fields a patch may change, and their columns. */
export const PATCH_COLUMNS: ReadonlyArray<{ field: keyof RowPatch; column: string; kind: ColumnKind }> = [
  { field: 'text', column: 'text', kind: 'text' },
  { field: 'type', column: 'type', kind: 'text' },
  { field: 'key', column: 'key', kind: 'text' },
  { field: 'tags', column: 'tags', kind: 'tags' },
  { field: 'level', column: 'level', kind: 'text' },
  { field: 'summary', column: 'summary', kind: 'text' },
  { field: 'background', column: 'background', kind: 'text' },
  { field: 'sources', column: 'sources', kind: 'json' },
  { field: 'metadata', column: 'metadata', kind: 'json' },
  { field: 'statedAt', column: 'stated_at', kind: 'text' },
  { field: 'status', column: 'status', kind: 'text' },
  { field: 'updatedAt', column: 'updated_at', kind: 'text' },
  { field: 'validFrom', column: 'valid_from', kind: 'text' },
  { field: 'validTo', column: 'valid_to', kind: 'text' },
  { field: 'supersededBy', column: 'superseded_by', kind: 'text' },
  { field: 'version', column: 'version', kind: 'int' },
  { field: 'seenCount', column: 'seen_count', kind: 'int' },
  { field: 'episode', column: 'episode', kind: 'json' },
];

/** The values of one record, encoded for the dialect, in {@link RECORD_COLUMNS} order. */
export function recordValues(record: StoredRecord, dialect: SqlDialect): unknown[] {
  return RECORD_COLUMNS.map((c) => dialect.encode(c.kind, c.value(record)));
}

/**
 * The `SET` assignments of a patch (present fields only; `undefined` keeps a field, `null` clears
 * it) and of a vector change (null clears the vector and its embedding info).
 */
export function patchAssignments(
  patch: RowPatch,
  vector: StoreVector | undefined,
  dialect: SqlDialect,
  params: SqlParams,
): string[] {
  const sets: string[] = [];
  const set = (column: string, kind: ColumnKind, value: unknown): void => {
    sets.push(`${column} = ${dialect.valueSql(kind, params.add(dialect.encode(kind, value)))}`);
  };
  for (const { field, column, kind } of PATCH_COLUMNS) {
    if (patch[field] !== undefined) set(column, kind, patch[field] ?? null);
  }
  if (vector !== undefined) {
    set('embed_model', 'text', vector?.embedding.model ?? null);
    set('embed_dim', 'int', vector?.embedding.dim ?? null);
    set('vector', 'bytes', vector ? encodeVector(vector.vector) : null);
  }
  return sets;
}
