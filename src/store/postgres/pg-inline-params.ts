/**
 * A parameterised statement written out with its values as SQL literals, so it can share one
 * simple-protocol query string with other statements (`SET LOCAL …; SELECT …`: one round trip,
 * one implicit transaction, where the extended protocol needs a transaction of its own).
 *
 * Literals: strings as `E'…'` with `\` and `'` escaped — read the same whatever
 * `standard_conforming_strings` is; finite numbers as written; null as NULL; arrays of strings
 * as `ARRAY[…]` (`'{}'` when empty; the statement casts them, e.g. `$2::text[]`). Anything else
 * (other objects, non-finite numbers, strings holding NUL) is refused rather than guessed.
 * Placeholders are replaced in one pass over the statement text, so a value that looks like a
 * placeholder is never read as one.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)(?!\d)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (!(index >= 0 && index < params.length)) throw new RangeError(`no value for $${n}`);
    return literal(params[index]);
  });
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError('a non-finite number cannot be inlined');
    return String(value);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return `'{}'`;
    return `ARRAY[${value
      .map((v) => {
        if (typeof v !== 'string') throw new TypeError('only arrays of strings can be inlined');
        return stringLiteral(v);
      })
      .join(',')}]`;
  }
  throw new TypeError(`a ${typeof value} cannot be inlined`);
}

function stringLiteral(value: string): string {
  if (value.includes('\u0000')) throw new RangeError('a string holding NUL cannot be inlined');
  return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
