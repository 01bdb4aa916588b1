import { EngramError } from '../model/errors.js';

function toNumber(value: string): number | undefined {
  const n = Number(value);
  return value.trim() === '' || !Number.isFinite(n) ? undefined : n;
}

/** Commander parser for a finite number; INVALID_INPUT otherwise (as REST and the library answer). */
export function parseNumber(value: string): number {
  const n = toNumber(value);
  if (n === undefined) throw new EngramError('INVALID_INPUT', `'${value}' is not a number`, { details: { value } });
  return n;
}

/** Commander parser for a result size; INVALID_LIMIT when it is not a number (the facade checks the range). */
export function parseLimit(value: string): number {
  const n = toNumber(value);
  if (n === undefined)
    throw new EngramError('INVALID_LIMIT', `limit must be an integer, got '${value}'`, {
      details: { field: 'limit', value },
    });
  return n;
}

/** Commander parser for a comma-separated list. */
export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

/** Commander parser for a JSON object (e.g. `--safety '{"actions":{"card":"reject"}}'`); INVALID_INPUT otherwise. */
export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new EngramError('INVALID_INPUT', 'the option must be a JSON object', { details: {} });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EngramError('INVALID_INPUT', 'the option must be a JSON object', { details: {} });
  }
  return parsed as Record<string, unknown>;
}
