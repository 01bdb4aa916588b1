import { EngramError } from '../model/errors.js';
import { MAX_STORE_LIMIT } from '../model/memory-filter.js';
import type {
  DenseGroupQuery,
  DenseQuery,
  LexicalGroupQuery,
  LexicalQuery,
  MemoryRecord,
  SearchExtras,
  SearchGroup,
  StorePatch,
  StoreVector,
} from './memory-store.js';
import {
  assertFilter,
  assertLimit,
  assertMemoryFields,
  assertQueryVectors,
  assertSpace,
  assertTenant,
  assertVector,
} from './record-validation.js';

/**
 * Checks the call-level arguments of the store contract, so that every backend answers the same
 * mistake with the same code (the conformance suite pins each). Records, patches' fields and
 * filters are checked by `record-validation.ts`.
 */

/** Throws INVALID_INPUT unless `id` is a non-empty string (a memory id is never empty). */
export function assertId(id: string): void {
  if (typeof id !== 'string' || id === '') throw new EngramError('INVALID_INPUT', 'id must be a non-empty string');
}

/** Throws INVALID_INPUT unless `value` is an ISO-8601 timestamp. */
export function assertTimestampArgument(value: string, name: string): void {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    throw new EngramError('INVALID_INPUT', `${name} must be an ISO-8601 timestamp`);
}

/** Checks the arguments of `update`: tenant, id, a patch with `updatedAt`, valid fields and vector. */
export function assertUpdate(tenant: string, id: string, patch: StorePatch, vector: StoreVector | undefined): void {
  assertTenant(tenant);
  assertId(id);
  if (patch === null || typeof patch !== 'object') throw new EngramError('INVALID_INPUT', 'patch must be an object');
  if (typeof patch.updatedAt !== 'string' || Number.isNaN(Date.parse(patch.updatedAt))) {
    throw new EngramError('INVALID_INPUT', 'patch.updatedAt must be an ISO-8601 timestamp', { details: { id } });
  }
  assertMemoryFields(patch as Partial<MemoryRecord>, id);
  if (vector !== undefined && vector !== null) {
    if (typeof vector !== 'object') throw new EngramError('INVALID_VECTOR', 'vector must be an object or null');
    assertVector(vector.vector, vector.embedding, id);
  }
}

function assertQueryObject(query: unknown): void {
  if (query === null || typeof query !== 'object') throw new EngramError('INVALID_INPUT', 'query must be an object');
}

/** The extras every search query may ask for: `withRows` a boolean, `analyzer` a name. */
function assertExtras(query: SearchExtras): void {
  if (query.withRows !== undefined && typeof query.withRows !== 'boolean')
    throw new EngramError('INVALID_INPUT', 'query.withRows must be a boolean');
  if (query.analyzer !== undefined && typeof query.analyzer !== 'string')
    throw new EngramError('INVALID_INPUT', 'query.analyzer must be a string');
}

/**
 * Checks a dense query: an object, a valid filter, a limit in [1, MAX_STORE_LIMIT], a model name
 * (INVALID_INPUT), and a non-empty Float32Array of finite values (INVALID_VECTOR).
 */
export function assertDenseQuery(query: DenseQuery): void {
  assertQueryObject(query);
  assertFilter(query.filter);
  assertLimit(query.limit, MAX_STORE_LIMIT);
  if (typeof query.model !== 'string' || query.model === '')
    throw new EngramError('INVALID_INPUT', 'query.model is required');
  if (!(query.vector instanceof Float32Array) || query.vector.length === 0)
    throw new EngramError('INVALID_VECTOR', 'query.vector must be a non-empty Float32Array');
  assertVector(query.vector, { model: query.model, dim: query.vector.length });
  assertExtras(query);
}

/** Checks a lexical query: an object, a valid filter, a limit, an optional space, an array of terms. */
export function assertLexicalQuery(query: LexicalQuery): void {
  assertQueryObject(query);
  assertFilter(query.filter);
  assertLimit(query.limit, MAX_STORE_LIMIT);
  assertSpace(query.space);
  if (!Array.isArray(query.terms)) throw new EngramError('INVALID_INPUT', 'query.terms must be an array of strings');
  assertExtras(query);
  if (query.scoreWith !== undefined) {
    if (query.space === undefined) throw new EngramError('INVALID_INPUT', 'query.scoreWith needs query.space');
    if (!(query.scoreWith instanceof Float32Array))
      throw new EngramError('INVALID_VECTOR', 'query.scoreWith must be a Float32Array');
    assertVector(query.scoreWith, query.space);
  }
  if (query.storedCosinesWith !== undefined) {
    if (query.space === undefined) throw new EngramError('INVALID_INPUT', 'query.storedCosinesWith needs query.space');
    assertQueryVectors(query.storedCosinesWith, 'query.storedCosinesWith');
    for (const vector of query.storedCosinesWith) assertVector(vector, query.space);
  }
}

/** The query of each group of a grouped search: its types in place of the filter's, its limit. */
function groupQueries<Q extends { filter: DenseQuery['filter'] }>(
  query: Q & { groups: SearchGroup[] },
): Array<Omit<Q, 'groups'> & { limit: number }> {
  assertQueryObject(query);
  if (!Array.isArray(query.groups)) throw new EngramError('INVALID_INPUT', 'query.groups must be an array');
  const { groups, ...rest } = query;
  return groups.map((g) => ({ ...rest, filter: { ...rest.filter, types: g?.types }, limit: g?.limit }));
}

/** Checks a grouped dense query as {@link assertDenseQuery} checks each group's query; returns those queries. */
export function denseGroupQueries(query: DenseGroupQuery): DenseQuery[] {
  const queries = groupQueries(query);
  queries.forEach(assertDenseQuery);
  return queries;
}

/** Checks a grouped lexical query as {@link assertLexicalQuery} checks each group's query; returns those queries. */
export function lexicalGroupQueries(query: LexicalGroupQuery): LexicalQuery[] {
  const queries = groupQueries(query);
  queries.forEach(assertLexicalQuery);
  return queries;
}
