/** Rows in the order of the requested ids, each id once; ids without a row are left out. */
export function inRequestedOrder<R extends { id: string }, T>(
  ids: readonly string[],
  rows: readonly R[],
  map: (row: R) => T,
): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const out: T[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const row = byId.get(id);
    if (row === undefined || seen.has(id)) continue;
    seen.add(id);
    out.push(map(row));
  }
  return out;
}
