/** One of a scope's newest rows with its validity (start as `filterWhere` reads it: valid_from, else stated, else created). */
export interface NewestRow {
  id: string;
  /** The row's key in the backend's caches, where its dialect has one (`SqlDialect.rowKey`). */
  pk?: number | undefined;
  updatedAt: string;
  validFrom: string;
  validTo: string | null;
}

/**
 * The newest `limit` rows valid at `at` (canonical ISO text), from `newest` — the newest `limit`
 * rows of the same filter without `validAt` — when those decide it: all of them are valid, or
 * the scope holds fewer than `limit` rows. Null otherwise (a newest row is not valid and older
 * ones may be): the caller runs the query with `validAt`. Validity as `filterWhere` tests it:
 * start inclusive, end exclusive, compared as text.
 */
export function validAmongNewest(newest: readonly NewestRow[], limit: number, at: string): NewestRow[] | null {
  const valid = newest.filter((r) => r.validFrom <= at && (r.validTo === null || r.validTo > at));
  return valid.length === newest.length || newest.length < limit ? valid : null;
}
