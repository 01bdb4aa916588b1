/**
 * A timestamp in the one form the store keeps world-time validity in and compares as text on
 * every backend (`YYYY-MM-DDTHH:mm:ss.sssZ`, UTC), so that `valid_from <= $t` in SQL and in the
 * SQLite cache agree. `value` must already be a parseable timestamp (validated by the caller).
 */
export function canonicalInstant(value: string): string {
  // Most timestamps were written by toISOString already (every insert passes here twice); a
  // field out of its plain range (Feb 30, hour 24), which Date.parse rolls over, takes the slow way.
  return isPlainCanonical(value) ? value : new Date(Date.parse(value)).toISOString();
}

const CANONICAL = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

function isPlainCanonical(value: string): boolean {
  return value.length === 24 && CANONICAL.test(value);
}

/** {@link canonicalInstant}, keeping null. */
export function canonicalOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : canonicalInstant(value);
}
