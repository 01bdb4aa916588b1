import { EngramError } from './errors.js';
import type { JsonObject, JsonValue } from './json.js';
import {
  MEMORY_INPUT_FIELDS,
  MEMORY_SOURCE_TEXT_FIELDS,
  MEMORY_SOURCE_TYPES,
  type MemoryPatch,
  type MemorySource,
} from './memory.js';
import {
  DEFAULT_MEMORY_STATUS,
  DEFAULT_MEMORY_TYPE,
  MEMORY_LEVELS,
  MEMORY_STATUSES,
  MEMORY_TYPES,
} from './memory-type.js';
import type { MemoryLevel, MemoryStatus, MemoryType } from './memory-type.js';
import { SCOPE_FIELDS, type Scope } from './scope.js';

/** Size limits applied to every write. */
export interface InputLimits {
  /** Longest memory text, in UTF-16 code units. @default 32768 */
  maxTextLength: number;
  /** Longest query text. @default 8192 */
  maxQueryLength: number;
  /** Most tags on one memory. @default 64 */
  maxTags: number;
  /** Longest serialised metadata, in characters. @default 65536 */
  maxMetadataLength: number;
  /** Largest `limit` a recall or list may ask for. @default 1000 */
  maxLimit: number;
}

export const DEFAULT_LIMITS: InputLimits = {
  maxTextLength: 32_768,
  maxQueryLength: 8_192,
  maxTags: 64,
  maxMetadataLength: 65_536,
  maxLimit: 1_000,
};

const SCOPE_VALUE = /^[^\p{Cc}]{1,256}$/u;
const MAX_JSON_DEPTH = 32;

function invalid(code: 'INVALID_INPUT' | 'INVALID_TEXT' | 'INVALID_SCOPE', message: string, field: string): never {
  throw new EngramError(code, message, { details: { field } });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Checks a scope: an object with a non-empty `tenant` and only known string fields. */
export function validateScope(scope: unknown, field = 'scope'): Scope {
  if (!isPlainObject(scope)) invalid('INVALID_SCOPE', `${field} must be an object with a tenant`, field);
  const out: Scope = { tenant: '' };
  for (const [key, value] of Object.entries(scope)) {
    if (!(SCOPE_FIELDS as readonly string[]).includes(key)) {
      invalid(
        'INVALID_SCOPE',
        `${field}.${key} is not a scope field (allowed: ${SCOPE_FIELDS.join(', ')})`,
        `${field}.${key}`,
      );
    }
    if (value === undefined || (value === null && key !== 'tenant')) continue;
    if (typeof value !== 'string' || !SCOPE_VALUE.test(value) || !value.isWellFormed()) {
      invalid(
        'INVALID_SCOPE',
        `${field}.${key} must be a string of 1 to 256 characters without control characters`,
        `${field}.${key}`,
      );
    }
    out[key as keyof Scope] = value;
  }
  if (!out.tenant) invalid('INVALID_SCOPE', `${field}.tenant is required`, `${field}.tenant`);
  return out;
}

/** Checks a text: a string, well-formed UTF-16 (no lone surrogates), not blank, within `max`. */
export function validateText(text: unknown, max: number, field = 'text'): string {
  if (typeof text !== 'string') invalid('INVALID_TEXT', `${field} must be a string`, field);
  if (!text.isWellFormed()) invalid('INVALID_TEXT', `${field} contains a lone surrogate (invalid UTF-16/UTF-8)`, field);
  if (text.trim().length === 0) invalid('INVALID_TEXT', `${field} must not be empty`, field);
  if (text.includes('\u0000')) invalid('INVALID_TEXT', `${field} must not contain NUL characters`, field);
  if (text.length > max) {
    throw new EngramError('TEXT_TOO_LONG', `${field} is ${text.length} characters; the limit is ${max}`, {
      details: { field, length: text.length, limit: max },
    });
  }
  return text;
}

/** Checks a result-size limit: an integer in [1, max]. */
export function validateLimit(limit: unknown, max: number, field = 'limit'): number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new EngramError('INVALID_LIMIT', `${field} must be an integer from 1 to ${max}`, {
      details: { field, value: typeof limit === 'number' ? limit : String(limit), max },
    });
  }
  return limit;
}

/** Checks a finite number in [min, max]. */
export function validateNumber(value: unknown, min: number, max: number, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    invalid('INVALID_INPUT', `${field} must be a number from ${min} to ${max}`, field);
  }
  return value;
}

function validateJson(value: unknown, field: string, depth: number): JsonValue {
  if (depth > MAX_JSON_DEPTH) invalid('INVALID_INPUT', `${field} is nested deeper than ${MAX_JSON_DEPTH}`, field);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) invalid('INVALID_INPUT', `${field} must be a finite number`, field);
    return value;
  }
  if (typeof value === 'string') {
    if (!value.isWellFormed()) invalid('INVALID_INPUT', `${field} contains a lone surrogate`, field);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => validateJson(v, `${field}[${i}]`, depth + 1));
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      out[k] = validateJson(v, `${field}.${k}`, depth + 1);
    }
    return out;
  }
  return invalid(
    'INVALID_INPUT',
    `${field} must be JSON (object, array, string, finite number, boolean or null)`,
    field,
  );
}

/** Checks metadata: a plain JSON object within the size limit. */
export function validateMetadata(value: unknown, limits: InputLimits, field = 'metadata'): JsonObject {
  if (value === undefined) return {};
  if (!isPlainObject(value)) invalid('INVALID_INPUT', `${field} must be an object`, field);
  const out = validateJson(value, field, 0) as JsonObject;
  if (JSON.stringify(out).length > limits.maxMetadataLength) {
    invalid('INVALID_INPUT', `${field} is larger than ${limits.maxMetadataLength} characters`, field);
  }
  return out;
}

function optionalString(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !value.isWellFormed() || value.length > max) {
    invalid('INVALID_INPUT', `${field} must be a well-formed string of at most ${max} characters`, field);
  }
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    invalid('INVALID_INPUT', `${field} must be one of: ${allowed.join(', ')}`, field);
  }
  return value as T;
}

/** Checks a date given as ISO string or Date; returns ISO-8601 UTC or null. */
export function validateDate(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) invalid('INVALID_INPUT', `${field} must be an ISO-8601 date`, field);
  return date.toISOString();
}

// Lists are absent or lists: `null` is refused, as on the wire (REST and MCP schemas), so one
// mistake gets one code everywhere.
function validateTags(value: unknown, limits: InputLimits, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > limits.maxTags) {
    invalid('INVALID_INPUT', `${field} must be an array of at most ${limits.maxTags} strings`, field);
  }
  const tags = value.map((t, i) => {
    if (typeof t !== 'string' || t.length === 0 || t.length > 128 || !t.isWellFormed()) {
      invalid('INVALID_INPUT', `${field}[${i}] must be a string of 1 to 128 characters`, `${field}[${i}]`);
    }
    return t;
  });
  return [...new Set(tags)];
}

function validateSources(value: unknown, limits: InputLimits, field: string): MemorySource[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 256)
    invalid('INVALID_INPUT', `${field} must be an array of at most 256 sources`, field);
  return value.map((s: unknown, i) => {
    const f = `${field}[${i}]`;
    if (!isPlainObject(s)) invalid('INVALID_INPUT', `${f} must be an object`, f);
    const source: MemorySource = { type: oneOf(s.type, MEMORY_SOURCE_TYPES, `${f}.type`) };
    for (const key of MEMORY_SOURCE_TEXT_FIELDS) {
      const v = optionalString(s[key], `${f}.${key}`, limits.maxTextLength);
      if (v !== null) source[key] = v;
    }
    return source;
  });
}

/** A validated, normalised memory input (defaults applied). */
export interface NormalizedInput {
  id: string | undefined;
  text: string;
  type: MemoryType;
  key: string | null;
  tags: string[];
  level: MemoryLevel | null;
  summary: string | null;
  background: string | null;
  sources: MemorySource[];
  metadata: JsonObject;
  statedAt: string | null;
  status: MemoryStatus;
  /** The caller's vector, checked for shape (its dimension is the facade's to check). */
  vector?: Float32Array | undefined;
}

const ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;

/** Checks one memory input and applies defaults. `field` prefixes error paths (e.g. `memories[3]`). */
export function validateMemoryInput(input: unknown, limits: InputLimits, field = 'memory'): NormalizedInput {
  if (!isPlainObject(input)) invalid('INVALID_INPUT', `${field} must be an object`, field);
  const known = new Set<string>(MEMORY_INPUT_FIELDS);
  for (const key of Object.keys(input)) {
    if (!known.has(key)) invalid('INVALID_INPUT', `${field}.${key} is not a memory field`, `${field}.${key}`);
  }
  let id: string | undefined;
  if (input.id !== undefined) {
    if (typeof input.id !== 'string' || !ID_PATTERN.test(input.id)) {
      invalid('INVALID_INPUT', `${field}.id must be 1 to 128 characters of A-Z a-z 0-9 . _ : @ -`, `${field}.id`);
    }
    id = input.id;
  }
  return {
    id,
    text: validateText(input.text, limits.maxTextLength, `${field}.text`),
    type: input.type === undefined ? DEFAULT_MEMORY_TYPE : oneOf(input.type, MEMORY_TYPES, `${field}.type`),
    key: optionalString(input.key, `${field}.key`, 512),
    tags: validateTags(input.tags, limits, `${field}.tags`),
    level:
      input.level === undefined || input.level === null ? null : oneOf(input.level, MEMORY_LEVELS, `${field}.level`),
    summary: optionalString(input.summary, `${field}.summary`, limits.maxTextLength),
    background: optionalString(input.background, `${field}.background`, limits.maxTextLength),
    sources: validateSources(input.sources, limits, `${field}.sources`),
    metadata: validateMetadata(input.metadata, limits, `${field}.metadata`),
    statedAt: validateDate(input.statedAt, `${field}.statedAt`),
    status:
      input.status === undefined ? DEFAULT_MEMORY_STATUS : oneOf(input.status, MEMORY_STATUSES, `${field}.status`),
    ...(input.vector === undefined ? {} : { vector: validateGivenVector(input.vector, undefined, `${field}.vector`) }),
  };
}

/** Checks a patch; only the fields present are returned. */
export function validatePatch(
  patch: unknown,
  limits: InputLimits,
  field = 'patch',
): MemoryPatch & { statedAt?: string | null } {
  if (!isPlainObject(patch)) invalid('INVALID_INPUT', `${field} must be an object`, field);
  if (Object.keys(patch).length === 0) invalid('INVALID_INPUT', `${field} must change at least one field`, field);
  if ('id' in patch) invalid('INVALID_INPUT', `${field}.id cannot be changed`, `${field}.id`);
  // Validate as a full input with a placeholder text, then keep only the fields present.
  const full = validateMemoryInput({ text: 'x', ...patch }, limits, field);
  const out: MemoryPatch & { statedAt?: string | null } = {};
  for (const key of Object.keys(patch) as Array<keyof NormalizedInput>) {
    (out as Record<string, unknown>)[key] = full[key];
  }
  return out;
}

/**
 * Checks a caller's precomputed vector (a Float32Array, a Float64Array or an array of numbers):
 * not empty, `dim` values when a dimension is given (DIMENSION_MISMATCH), every value a finite
 * number that stays finite as float32, not all zeros (INVALID_VECTOR). Returns it as float32.
 */
export function validateGivenVector(value: unknown, dim: number | undefined, field = 'vector'): Float32Array {
  const list = Array.isArray(value) || value instanceof Float32Array || value instanceof Float64Array;
  if (!list || (value as ArrayLike<unknown>).length === 0) {
    throw new EngramError('INVALID_VECTOR', `${field} must be a non-empty array of numbers`, { details: { field } });
  }
  const values = value as ArrayLike<unknown>;
  if (dim !== undefined && values.length !== dim) {
    throw new EngramError('DIMENSION_MISMATCH', `${field} has ${values.length} dimensions; expected ${dim}`, {
      details: { field, got: values.length, expected: dim },
    });
  }
  const out = new Float32Array(values.length);
  let zero = true;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'number') out[i] = v;
    if (typeof v !== 'number' || !Number.isFinite(out[i])) {
      throw new EngramError('INVALID_VECTOR', `${field}[${i}] is not a finite number`, {
        details: { field, index: i },
      });
    }
    if (v !== 0) zero = false;
  }
  if (zero) throw new EngramError('INVALID_VECTOR', `${field} is all zeros`, { details: { field } });
  return out;
}

/** Rejects NaN / Infinity and wrong dimensions in a vector. */
export function validateVector(vector: ArrayLike<number>, dim: number, field = 'vector'): void {
  if (vector.length !== dim) {
    throw new EngramError('DIMENSION_MISMATCH', `${field} has ${vector.length} dimensions; expected ${dim}`, {
      details: { field, got: vector.length, expected: dim },
    });
  }
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) {
      throw new EngramError('INVALID_VECTOR', `${field}[${i}] is not a finite number`, {
        details: { field, index: i },
      });
    }
  }
}
