import { DEFAULT_BUCKET_LIMITS } from './bucket-limits.js';
import { CHAT_ROLES } from './chat-message.js';
import { EngramError } from './errors.js';
import { PATH_NAMES } from './path-name.js';
import {
  MAX_CONVERSATION_MESSAGES,
  MAX_DEEP_STAGES,
  MAX_SEARCH_COLLECTIONS,
  SEARCH_MODES,
  SEARCH_OPTION_NAMES,
  rejectUnknownFields,
} from './request-fields.js';
import { SCOPE_FIELDS } from './scope.js';
import type { SearchOptions } from './search-options.js';
import { validateLimit, validateNumber, validateScope, type InputLimits } from './validate.js';

function invalid(field: string, message: string): never {
  throw new EngramError('INVALID_INPUT', `${field} ${message}`, { details: { field } });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkOneOf(value: unknown, allowed: readonly unknown[], field: string): void {
  if (value !== undefined && !allowed.includes(value)) invalid(field, `must be one of: ${allowed.join(', ')}`);
}

function checkList(value: unknown, allowed: readonly string[], field: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((v) => !allowed.includes(v as string)))
    invalid(field, `must be a list of: ${allowed.join(', ')}`);
}

function checkBoolean(options: SearchOptions, fields: ReadonlyArray<keyof SearchOptions>): void {
  for (const field of fields) {
    const value = options[field];
    if (value !== undefined && typeof value !== 'boolean') invalid(field, 'must be true or false');
  }
}

function checkString(value: unknown, field: string, max: number): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !value.isWellFormed()) invalid(field, 'must be a well-formed string');
  if (value.length > max) {
    throw new EngramError('TEXT_TOO_LONG', `${field} is ${value.length} characters; the limit is ${max}`, {
      details: { field, length: value.length, limit: max },
    });
  }
}

/** Collection names are scope values: INVALID_SCOPE for a bad name, as in `scope.collection`. */
function checkCollections(value: unknown, tenant: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SEARCH_COLLECTIONS) {
    invalid('collections', `must be a list of 1 to ${MAX_SEARCH_COLLECTIONS} collection names`);
  }
  value.forEach((c, i) => validateScope({ tenant, collection: c }, `collections[${i}]`));
}

/** A soft preference, not an access boundary: every scope field but the tenant. */
function checkPriority(value: unknown): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) invalid('priority', 'must be an object');
  rejectUnknownFields(
    value,
    SCOPE_FIELDS.filter((f) => f !== 'tenant'),
    'priority',
  );
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > 256))
      invalid(`priority.${key}`, 'must be a string of 1 to 256 characters');
  }
}

function checkBoost(value: unknown): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) invalid('boost', 'must be an object');
  rejectUnknownFields(value, ['userId', 'sessionId', 'tags'], 'boost');
  for (const key of ['userId', 'sessionId'] as const)
    if (value[key] !== undefined && typeof value[key] !== 'string') invalid(`boost.${key}`, 'must be a string');
  if (value.tags !== undefined && (!Array.isArray(value.tags) || value.tags.some((t) => typeof t !== 'string')))
    invalid('boost.tags', 'must be a list of strings');
}

function checkBucketLimits(value: unknown, maxLimit: number): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) invalid('bucketLimits', 'must be an object');
  rejectUnknownFields(
    value,
    Object.keys(DEFAULT_BUCKET_LIMITS).filter((k) => k !== 'topK'),
    'bucketLimits',
  );
  for (const [key, limit] of Object.entries(value))
    if (limit !== undefined) validateLimit(limit, maxLimit, `bucketLimits.${key}`);
}

function checkConversation(value: unknown, maxTextLength: number): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.length > MAX_CONVERSATION_MESSAGES)
    invalid('conversation', `must be a list of at most ${MAX_CONVERSATION_MESSAGES} messages`);
  value.forEach((m: unknown, i) => {
    const field = `conversation[${i}]`;
    if (!isPlainObject(m)) invalid(field, 'must be a {role, content} object');
    rejectUnknownFields(m, ['role', 'content'], 'message');
    checkOneOf(m.role, CHAT_ROLES, `${field}.role`);
    if (typeof m.content !== 'string') invalid(`${field}.content`, 'must be a string');
    checkString(m.content, `${field}.content`, maxTextLength);
  });
}

/**
 * Checks every search option except `scope` and `types` (checked with the facade's filter),
 * with the code each entry point answers for the same mistake: unknown fields and values
 * INVALID_INPUT, sizes INVALID_LIMIT, collection names INVALID_SCOPE, long texts TEXT_TOO_LONG.
 * The reranker name is checked by the reranker registry (INVALID_INPUT listing the names).
 */
export function validateSearchOptions(options: SearchOptions, tenant: string, limits: InputLimits): void {
  rejectUnknownFields(options, SEARCH_OPTION_NAMES, 'search');
  checkOneOf(options.mode, SEARCH_MODES, 'mode');
  if (options.topK !== undefined) validateLimit(options.topK, limits.maxLimit, 'topK');
  checkBucketLimits(options.bucketLimits, limits.maxLimit);
  checkList(options.paths, PATH_NAMES, 'paths');
  checkOneOf(options.internet, [true, false, 'always'], 'internet');
  if (options.reranker !== undefined && typeof options.reranker !== 'string')
    invalid('reranker', 'must be a reranker name');
  checkCollections(options.collections, tenant);
  if (options.threshold !== undefined && (typeof options.threshold !== 'number' || !Number.isFinite(options.threshold)))
    invalid('threshold', 'must be a finite number');
  checkPriority(options.priority);
  checkBoost(options.boost);
  checkBoolean(options, ['fastGraph', 'fulltext', 'decompose', 'reason', 'deepRewrite', 'dedupe', 'sequential']);
  if (
    options.deepStages !== undefined &&
    (!Number.isInteger(options.deepStages) || options.deepStages < 1 || options.deepStages > MAX_DEEP_STAGES)
  ) {
    invalid('deepStages', `must be an integer from 1 to ${MAX_DEEP_STAGES}`);
  }
  if (options.nearDuplicateThreshold !== undefined)
    validateNumber(options.nearDuplicateThreshold, 0, 1, 'nearDuplicateThreshold');
  if (options.mmrLambda !== undefined) validateNumber(options.mmrLambda, 0, 1, 'mmrLambda');
  checkString(options.context, 'context', limits.maxQueryLength);
  checkConversation(options.conversation, limits.maxTextLength);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    invalid('signal', 'must be an AbortSignal');
}
