import type { z } from '@hono/zod-openapi';
import { EngramError, type EngramErrorCode } from '../model/errors.js';

const SCOPE_QUERY_FIELDS = new Set(['tenant', 'user', 'agent', 'session', 'collection']);

/** The error code Engram's own validators use for a field, so remote and in-process errors agree. */
function codeFor(path: PropertyKey[], issue: z.core.$ZodIssue, where: 'body' | 'query' | 'param'): EngramErrorCode {
  const [first] = path;
  const last = path[path.length - 1];
  if (first === 'scope' || (where === 'query' && typeof first === 'string' && SCOPE_QUERY_FIELDS.has(first))) return 'INVALID_SCOPE';
  if (issue.code === 'unrecognized_keys' && last === 'scope') return 'INVALID_SCOPE';
  if (first === 'memories' && path.length === 1 && issue.code === 'too_big') return 'PAYLOAD_TOO_LARGE';
  if (last === 'text' || (first === 'query' && path.length === 1)) return 'INVALID_TEXT';
  if (last === 'limit' || (last === 'topK' && path.length === 1)) return 'INVALID_LIMIT';
  return 'INVALID_INPUT';
}

function formatPath(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/** Turns the first zod issue into an EngramError with a stable code, the field and every issue. */
export function validationError(error: z.ZodError, where: 'body' | 'query' | 'param'): EngramError {
  const issues = error.issues.slice(0, 20);
  const first = issues[0];
  if (!first) return new EngramError('INVALID_INPUT', `invalid ${where}`);
  let path = [...first.path];
  if (first.code === 'unrecognized_keys' && first.keys.length > 0) path = [...path, first.keys[0] as string];
  const field = formatPath(path) || where;
  const code = codeFor(first.code === 'unrecognized_keys' ? first.path : path, first, where);
  const message =
    first.code === 'unrecognized_keys'
      ? `${field} is not a known field`
      : `${field}: ${first.message}`;
  return new EngramError(code, message, {
    details: {
      field,
      in: where,
      issues: issues.map((i) => ({ path: formatPath(i.path), code: i.code, message: i.message })),
    },
  });
}
