import type { z } from 'zod';
import { EngramError, type EngramErrorCode } from '../model/errors.js';
import { SCOPE_FIELDS } from '../model/scope.js';

/**
 * Where a request's fields were found: a JSON body, a query string, path parameters, or MCP
 * tool arguments. In a query string and in tool arguments the scope fields are top-level names.
 */
export type FieldSource = 'body' | 'query' | 'param' | 'arguments';

const SCOPE_NAMES = new Set<PropertyKey>(SCOPE_FIELDS);
const LIMIT_FIELD = /^(limit|topK|\w+TopK)$/;

/**
 * The code the facade's own validators use for a field, so that a mistake sent over REST or MCP
 * gets the code it gets from the library: scope fields and collection names → INVALID_SCOPE,
 * texts and queries → INVALID_TEXT, result sizes → INVALID_LIMIT, precomputed vectors (a value
 * that is not a number: JSON has no NaN) → INVALID_VECTOR, the rest → INVALID_INPUT.
 */
function codeFor(path: PropertyKey[], issue: z.core.$ZodIssue, where: FieldSource): EngramErrorCode {
  const [first] = path;
  const last = path[path.length - 1];
  const flatScope = where === 'query' || where === 'arguments';
  if (first === 'scope' || (flatScope && path.length === 1 && SCOPE_NAMES.has(first as PropertyKey)))
    return 'INVALID_SCOPE';
  if (first === 'collections' && path.length >= 2) return 'INVALID_SCOPE';
  if (first === 'memories' && path.length === 1 && issue.code === 'too_big') return 'PAYLOAD_TOO_LARGE';
  if (last === 'text' || (first === 'query' && path.length === 1)) return 'INVALID_TEXT';
  if (path.includes('vector')) return 'INVALID_VECTOR';
  if (typeof last === 'string' && LIMIT_FIELD.test(last)) return 'INVALID_LIMIT';
  return 'INVALID_INPUT';
}

function formatPath(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** Turns the first zod issue into an EngramError with a stable code, the field and every issue. */
export function validationError(error: z.ZodError, where: FieldSource): EngramError {
  const issues = error.issues.slice(0, 20);
  const first = issues[0];
  if (!first) return new EngramError('INVALID_INPUT', `invalid ${where}`);
  const unknownKey =
    first.code === 'unrecognized_keys' && first.keys.length > 0 ? (first.keys[0] as string) : undefined;
  const path = unknownKey === undefined ? [...first.path] : [...first.path, unknownKey];
  const field = formatPath(path) || where;
  // An unknown key is a mistake of the object that holds it: `scope.planet` is a scope mistake,
  // `colour` next to `text` is not a text mistake.
  const code =
    unknownKey === undefined
      ? codeFor(path, first, where)
      : first.path[0] === 'scope'
        ? 'INVALID_SCOPE'
        : 'INVALID_INPUT';
  const message = unknownKey === undefined ? `${field}: ${first.message}` : `${field} is not a known field`;
  return new EngramError(code, message, {
    details: {
      field,
      in: where,
      issues: issues.map((i) => ({ path: formatPath(i.path), code: i.code, message: i.message })),
    },
  });
}
