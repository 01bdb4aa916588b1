import { EngramError } from '../model/errors.js';
import { MEMORY_LEVELS, MEMORY_STATUSES, MEMORY_TYPES } from '../model/memory-type.js';
import { SCOPE_FIELDS, type Scope } from '../model/scope.js';
import { MEMORY_SOURCE_TYPES, type EmbeddingInfo, type MemorySource } from '../model/memory.js';
import type { MemoryRecord, UsageEntry } from './memory-store.js';
import type { MemoryFilter } from '../model/memory-filter.js';
import { assertStorableJson, assertStorableText } from './text-check.js';

const TYPES = new Set<string>(MEMORY_TYPES);
const STATUSES = new Set<string>(MEMORY_STATUSES);
const LEVELS = new Set<string>(MEMORY_LEVELS);
const SOURCE_TYPES = new Set<string>(MEMORY_SOURCE_TYPES);

function invalid(message: string, details: Record<string, unknown>): EngramError {
  return new EngramError('INVALID_INPUT', message, { details });
}

/** Throws EngramError('INVALID_SCOPE') unless `scope.tenant` is a non-empty string and every other field is a string or absent. */
export function assertScope(scope: Scope | undefined): asserts scope is Scope {
  if (scope === null || typeof scope !== 'object' || typeof scope.tenant !== 'string' || scope.tenant === '') {
    throw new EngramError('INVALID_SCOPE', 'scope.tenant must be a non-empty string');
  }
  for (const field of SCOPE_FIELDS) {
    const value = scope[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') {
      throw new EngramError('INVALID_SCOPE', `scope.${field} must be a non-empty string when given`, {
        details: { field },
      });
    }
    assertStorableText(value, `scope.${field}`);
  }
}

/** Throws EngramError('INVALID_SCOPE') unless `tenant` is a non-empty string. */
export function assertTenant(tenant: string): void {
  if (typeof tenant !== 'string' || tenant === '') {
    throw new EngramError('INVALID_SCOPE', 'tenant must be a non-empty string');
  }
}

/** Throws EngramError('INVALID_INPUT') unless `ids` is an array of strings. */
export function assertIds(ids: string[]): void {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    throw invalid('ids must be an array of strings', {});
  }
}

/** Query vectors handed to a store: an array of Float32Arrays (else INVALID_VECTOR, naming them as `name`). */
export function assertQueryVectors(queries: readonly Float32Array[], name = 'query vectors'): void {
  if (!Array.isArray(queries) || queries.some((q) => !(q instanceof Float32Array))) {
    throw new EngramError('INVALID_VECTOR', `${name} must be an array of Float32Arrays`, {});
  }
}

/**
 * Checks a vector against its embedding info: finite numbers only (INVALID_VECTOR) and
 * `vector.length === embedding.dim` (DIMENSION_MISMATCH).
 */
export function assertVector(vector: Float32Array, embedding: EmbeddingInfo | null, id?: string): void {
  if (!(vector instanceof Float32Array)) {
    throw new EngramError('INVALID_VECTOR', 'vector must be a Float32Array', { details: { id } });
  }
  if (embedding === null || typeof embedding.model !== 'string' || embedding.model === '') {
    throw new EngramError('INVALID_VECTOR', 'a vector needs embedding info with a model id', { details: { id } });
  }
  if (!Number.isInteger(embedding.dim) || embedding.dim <= 0) {
    throw new EngramError('INVALID_VECTOR', 'embedding.dim must be a positive integer', { details: { id } });
  }
  if (vector.length !== embedding.dim) {
    throw new EngramError(
      'DIMENSION_MISMATCH',
      `vector has ${vector.length} values, embedding.dim is ${embedding.dim}`,
      {
        details: { id, length: vector.length, dim: embedding.dim },
      },
    );
  }
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i] as number)) {
      throw new EngramError('INVALID_VECTOR', 'vector contains NaN or Infinity', { details: { id, index: i } });
    }
  }
}

function assertOptionalText(value: unknown, field: string, id: string): void {
  if (value === null || value === undefined) return;
  if (typeof value !== 'string') throw invalid(`${field} must be a string or null`, { field, id });
  assertStorableText(value, field, id);
}

function assertTimestamp(value: unknown, field: string, id: string, nullable: boolean): void {
  if (value === null && nullable) return;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw invalid(`${field} must be an ISO-8601 timestamp`, { field, id });
  }
}

/** Validates the mutable fields shared by records and patches. Only present keys are checked. */
export function assertMemoryFields(fields: Partial<MemoryRecord>, id: string): void {
  if (fields.text !== undefined) {
    if (typeof fields.text !== 'string')
      throw new EngramError('INVALID_TEXT', 'text must be a string', { details: { id } });
    assertStorableText(fields.text, 'text', id);
  }
  if (fields.type !== undefined && !TYPES.has(fields.type))
    throw invalid(`unknown memory type ${String(fields.type)}`, { id });
  if (fields.status !== undefined && !STATUSES.has(fields.status))
    throw invalid(`unknown status ${String(fields.status)}`, { id });
  if (fields.level !== undefined && fields.level !== null && !LEVELS.has(fields.level)) {
    throw invalid(`unknown level ${String(fields.level)}`, { id });
  }
  assertOptionalText(fields.key, 'key', id);
  assertOptionalText(fields.summary, 'summary', id);
  assertOptionalText(fields.background, 'background', id);
  if (fields.tags !== undefined) {
    if (!Array.isArray(fields.tags) || fields.tags.some((t) => typeof t !== 'string')) {
      throw invalid('tags must be an array of strings', { id });
    }
    for (const tag of fields.tags) assertStorableText(tag, 'tags', id);
  }
  if (fields.sources !== undefined) {
    if (!Array.isArray(fields.sources)) throw invalid('sources must be an array', { id });
    for (const source of fields.sources as MemorySource[]) {
      if (source === null || typeof source !== 'object' || !SOURCE_TYPES.has(source.type)) {
        throw invalid('each source needs a known type', { id });
      }
      assertStorableJson(source, 'sources', id);
    }
  }
  if (fields.metadata !== undefined) {
    if (fields.metadata === null || typeof fields.metadata !== 'object' || Array.isArray(fields.metadata)) {
      throw invalid('metadata must be a JSON object', { id });
    }
    assertStorableJson(fields.metadata, 'metadata', id);
  }
  if (fields.statedAt !== undefined) assertTimestamp(fields.statedAt, 'statedAt', id, true);
}

/** Validates a whole record before it is written. Throws EngramError with a stable code. */
export function assertRecord(record: MemoryRecord): void {
  if (record === null || typeof record !== 'object') throw invalid('record must be an object', {});
  if (typeof record.id !== 'string' || record.id === '') throw invalid('record.id must be a non-empty string', {});
  assertStorableText(record.id, 'id', record.id);
  assertScope(record.scope);
  if (typeof record.text !== 'string')
    throw new EngramError('INVALID_TEXT', 'text must be a string', { details: { id: record.id } });
  for (const field of ['type', 'status', 'tags', 'sources', 'metadata', 'createdAt', 'updatedAt'] as const) {
    if (record[field] === undefined) throw invalid(`record.${field} is required`, { id: record.id, field });
  }
  assertMemoryFields(record, record.id);
  assertTimestamp(record.createdAt, 'createdAt', record.id, false);
  assertTimestamp(record.updatedAt, 'updatedAt', record.id, false);
  assertValidity(record);
  if (record.vector !== null && record.vector !== undefined) {
    assertVector(record.vector, record.embedding, record.id);
  } else if (record.embedding !== null && record.embedding !== undefined) {
    throw new EngramError('INVALID_VECTOR', 'embedding info given without a vector', { details: { id: record.id } });
  }
}

/**
 * A record's validity, when it gives one: timestamps, an end not before the start, a successor
 * id, a positive integer version.
 */
function assertValidity(record: MemoryRecord): void {
  const { id } = record;
  if (record.validFrom !== undefined) assertTimestamp(record.validFrom, 'validFrom', id, false);
  if (record.validTo !== undefined) assertTimestamp(record.validTo, 'validTo', id, true);
  assertOptionalText(record.supersededBy, 'supersededBy', id);
  if (record.version !== undefined && (!Number.isInteger(record.version) || record.version < 1)) {
    throw invalid('version must be a positive integer', { id, field: 'version' });
  }
  const from = Date.parse(record.validFrom ?? record.statedAt ?? record.createdAt);
  if (record.validTo !== undefined && record.validTo !== null && Date.parse(record.validTo) < from) {
    throw invalid(`memory ${id} would end before it starts`, { id, field: 'validTo' });
  }
}

/** Validates a filter: tenant required, arrays of strings where arrays are expected. */
export function assertFilter(filter: MemoryFilter): void {
  if (filter === null || typeof filter !== 'object') throw new EngramError('INVALID_SCOPE', 'filter.scope is required');
  assertScope(filter.scope);
  for (const field of ['types', 'statuses', 'tags', 'ids'] as const) {
    const value = filter[field];
    if (value !== undefined && (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))) {
      throw invalid(`filter.${field} must be an array of strings`, { field });
    }
  }
  if (filter.key !== undefined && typeof filter.key !== 'string') throw invalid('filter.key must be a string', {});
  if (
    filter.validAt !== undefined &&
    (typeof filter.validAt !== 'string' || Number.isNaN(Date.parse(filter.validAt)))
  ) {
    throw invalid('filter.validAt must be an ISO-8601 timestamp', { field: 'validAt' });
  }
}

/** Throws EngramError('INVALID_LIMIT') unless `limit` is an integer in [1, max]. */
export function assertLimit(limit: number, max: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new EngramError('INVALID_LIMIT', `limit must be an integer between 1 and ${max}`, {
      details: { limit, max },
    });
  }
}

/** Checks usage entries for `setUsage`: ids, non-negative integer counts, ISO timestamps or null. */
export function assertUsageEntries(usage: UsageEntry[]): void {
  if (!Array.isArray(usage)) throw new EngramError('INVALID_INPUT', 'usage must be an array');
  for (const entry of usage) {
    if (typeof entry?.id !== 'string' || !Number.isInteger(entry.count) || entry.count < 0) {
      throw new EngramError('INVALID_INPUT', 'each usage entry needs an id and a non-negative integer count');
    }
    if (
      entry.lastUsedAt !== null &&
      (typeof entry.lastUsedAt !== 'string' || Number.isNaN(Date.parse(entry.lastUsedAt)))
    ) {
      throw new EngramError('INVALID_INPUT', 'lastUsedAt must be an ISO-8601 timestamp or null', {
        details: { id: entry.id },
      });
    }
  }
}

/** A lexical query's optional embedding space: a model name and a positive dimension. */
export function assertSpace(space: EmbeddingInfo | undefined): void {
  if (space === undefined) return;
  if (
    space === null ||
    typeof space !== 'object' ||
    typeof space.model !== 'string' ||
    space.model === '' ||
    !Number.isInteger(space.dim) ||
    space.dim <= 0
  ) {
    throw new EngramError('INVALID_INPUT', 'query.space must be { model: non-empty string, dim: positive integer }');
  }
}
