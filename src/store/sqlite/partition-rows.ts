import { MEMORY_STATUSES, MEMORY_TYPES, type MemoryStatus, type MemoryType } from '../../model/memory-type.js';
import { knownLiteral } from '../../util/known-literal.js';
import type { ContextColumns } from '../memory-context.js';
import { VALID_FROM_SQL } from '../sql/filter-where.js';
import type { SlotMeta } from './vector-partition.js';

/** Partition key for a query without a user: every user of the tenant. */
export const ALL_USERS = '\u0000*';

/** A `memories` row as a vector partition reads it. */
export interface VectorRow {
  pk: number;
  id: string;
  user_id: string | null;
  embed_model: string | null;
  embed_dim: number | null;
  vector: Buffer | null;
  status: string;
  type: string;
  agent_id: string | null;
  session_id: string | null;
  collection: string | null;
  key: string | null;
  tags: string;
  updated_at: string;
  valid_from: string;
  valid_to: string | null;
}

/** The columns of {@link VectorRow}, over alias `m`. */
export const VECTOR_COLUMNS =
  'm.pk AS pk, m.id AS id, m.user_id AS user_id, m.embed_model AS embed_model, m.embed_dim AS embed_dim, ' +
  'm.vector AS vector, m.status AS status, m.type AS type, m.agent_id AS agent_id, m.session_id AS session_id, ' +
  'm.collection AS collection, m.key AS key, m.tags AS tags, m.updated_at AS updated_at, ' +
  `${VALID_FROM_SQL} AS valid_from, m.valid_to AS valid_to`;

/** What the lexical index keeps of a row besides its filter fields: the text and its context. */
export interface TextRow extends ContextColumns {
  text: string;
}

/** The columns of {@link TextRow}, over alias `m`. */
export const TEXT_COLUMNS =
  'm.text AS text, m.background AS background, m.stated_at AS stated_at, m.sources AS sources, m.metadata AS metadata';

/** The rows of a partition, as a WHERE fragment over alias `m`. */
export function partitionWhere(
  tenant: string,
  model: string,
  dim: number,
  user: string,
): { sql: string; params: unknown[] } {
  const allUsers = user === ALL_USERS;
  return {
    sql: `m.tenant = ? AND m.embed_model = ? AND m.embed_dim = ? ${allUsers ? '' : 'AND m.user_id = ?'} AND m.vector IS NOT NULL`,
    params: allUsers ? [tenant, model, dim] : [tenant, model, dim, user],
  };
}

/** A row's filter fields as a partition slot keeps them (tags parsed). */
export function metaOf(row: VectorRow): SlotMeta {
  let tags: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.tags);
    if (Array.isArray(parsed)) tags = parsed.filter((t): t is string => typeof t === 'string');
  } catch {
    tags = [];
  }
  return {
    status: knownLiteral(row.status, MEMORY_STATUSES) as MemoryStatus,
    type: knownLiteral(row.type, MEMORY_TYPES) as MemoryType,
    agent: row.agent_id,
    session: row.session_id,
    collection: row.collection,
    key: row.key,
    tags,
    updatedAt: row.updated_at,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    pk: row.pk,
  };
}

/** A Float32Array over a blob of exactly `dim` float32 values, or null when the blob is corrupt. */
export function blobVector(blob: Buffer, dim: number): Float32Array | null {
  if (blob.byteLength !== dim * 4) return null;
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, dim);
  return new Float32Array(new Uint8Array(blob).buffer, 0, dim);
}
