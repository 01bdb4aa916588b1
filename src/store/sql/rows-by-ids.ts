/**
 * Rows in the order of the requested ids, each id once; ids without a row are left out. `rows`
 * (an array, or a map by id) must hold requested rows only: then as many rows as ids means no id
 * repeats, and placed ids are remembered only when there are fewer.
 */
export function inRequestedOrder<R extends { id: string }, T>(
  ids: readonly string[],
  rows: readonly R[] | ReadonlyMap<string, R>,
  map: (row: R) => T,
): T[] {
  const byId = rows instanceof Map ? rows : new Map((rows as readonly R[]).map((row) => [row.id, row]));
  const out: T[] = [];
  // Only a repeated id needs remembering what was placed.
  const seen = byId.size < ids.length ? new Set<string>() : null;
  for (const id of ids) {
    const row = byId.get(id);
    if (row === undefined) continue;
    if (seen !== null) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    out.push(map(row));
  }
  return out;
}
