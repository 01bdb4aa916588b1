/**
 * A timestamp in the one form the store keeps world-time validity in and compares as text on
 * every backend (`YYYY-MM-DDTHH:mm:ss.sssZ`, UTC), so that `valid_from <= $t` in SQL and in the
 * SQLite cache agree. `value` must already be a parseable timestamp (validated by the caller).
 */
export function canonicalInstant(value: string): string {
  return new Date(Date.parse(value)).toISOString();
}

/** {@link canonicalInstant}, keeping null. */
export function canonicalOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : canonicalInstant(value);
}
