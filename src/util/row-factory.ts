/** Makes a row object from one result row's values, in the order of the column names it was made for. */
export type RowFactory = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * A row factory for these column names: one object literal with every name as a key, compiled
 * once per statement. V8 gives each such row its final shape at once, where a row built key by
 * key is slower to build and to read (a search's rows, 27 columns each, come back from the store
 * in about 0.9 of the time: `bench/RESULTS-search.md`). The literal means what assigning the
 * names in order means, a repeated name (its last value wins) and `__proto__` included. Where the
 * runtime refuses to compile code from strings, rows are built key by key.
 */
export function rowFactory(names: readonly string[]): RowFactory {
  // Keys are JSON string literals, so any name is quoted safely; values are read by position.
  const body = `return { ${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`;
  try {
    return new Function('v', body) as RowFactory;
  } catch {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
      return row;
    };
  }
}
