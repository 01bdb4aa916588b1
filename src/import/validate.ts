import { EngramError } from '../model/errors.js';
import type { JsonObject, JsonValue } from '../model/json.js';

/**
 * Small validation helpers shared by the importers. Every failure is an
 * `EngramError('INVALID_INPUT')` whose message starts with the path of the bad field
 * (e.g. `[0].conversation.session_1[3].text`), so a user can find it in the file.
 */

/** A plain object read from JSON. */
export type Obj = { [key: string]: unknown };

/** Short, single-line description of a JSON value for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Throws `EngramError('INVALID_INPUT')` with the field path in the message and details. */
export function invalid(path: string, message: string, details: Record<string, unknown> = {}): never {
  throw new EngramError('INVALID_INPUT', `${path}: ${message}`, { details: { path, ...details } });
}

/** Appends a property name to a path (`a` + `b` → `a.b`; `` + `b` → `b`). */
export function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Appends an array index to a path (`a` + 3 → `a[3]`). */
export function atIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** True for a non-null, non-array object. */
export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Asserts a plain object. */
export function expectObject(value: unknown, path: string): Obj {
  if (!isObj(value)) invalid(path, `expected an object, got ${describe(value)}`);
  return value;
}

/** Asserts an array. */
export function expectArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) invalid(path, `expected an array, got ${describe(value)}`);
  return value;
}

/** Asserts a string; `nonEmpty` also rejects strings that are empty after trimming. */
export function expectString(value: unknown, path: string, nonEmpty = false): string {
  if (typeof value !== 'string') invalid(path, `expected a string, got ${describe(value)}`);
  if (nonEmpty && value.trim() === '') invalid(path, 'must not be empty');
  return value;
}

/** Asserts a string or undefined (returned as given). */
export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  return expectString(value, path);
}

/** Asserts a string, null or undefined. */
export function nullableString(value: unknown, path: string): string | null | undefined {
  if (value === null || value === undefined) return value;
  return expectString(value, path);
}

/** Asserts an array of strings. */
export function expectStringArray(value: unknown, path: string): string[] {
  return expectArray(value, path).map((item, i) => expectString(item, atIndex(path, i)));
}

/** Asserts a value is JSON (no functions, undefined, NaN / Infinity, or cycles) and returns it typed. */
export function expectJson(value: unknown, path: string, seen: Set<object> = new Set()): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) invalid(path, `expected a finite number, got ${String(value)}`);
    return value;
  }
  if (typeof value === 'object') {
    if (seen.has(value)) invalid(path, 'is a circular reference');
    seen.add(value);
    try {
      if (Array.isArray(value)) return value.map((item, i) => expectJson(item, atIndex(path, i), seen));
      const out: JsonObject = {};
      for (const [key, item] of Object.entries(value)) out[key] = expectJson(item, at(path, key), seen);
      return out;
    } finally {
      seen.delete(value);
    }
  }
  return invalid(path, `expected a JSON value, got ${typeof value}`);
}

/** Asserts a JSON object. */
export function expectJsonObject(value: unknown, path: string): JsonObject {
  expectObject(value, path);
  return expectJson(value, path) as JsonObject;
}

/** Asserts one of a fixed set of string literals. */
export function expectOneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    invalid(path, `expected one of ${allowed.join(', ')}, got ${describe(value)}`);
  }
  return value as T;
}

/** Rejects properties outside `allowed`, naming the first unknown one. */
export function rejectUnknownKeys(obj: Obj, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) invalid(at(path, key), `unknown field (allowed: ${allowed.join(', ')})`);
  }
}
