/**
 * A value now or later. The SQL engine is written once over both drivers: better-sqlite3 answers
 * synchronously (and its transactions must not yield), node-postgres asynchronously. Steps chained
 * with {@link andThen} stay synchronous when every step is, so the SQLite paths never touch the
 * microtask queue and a SQLite transaction runs start to end without another call interleaving.
 */
export type Maybe<T> = T | Promise<T>;

/**
 * `next(value)` now when `value` is a plain value, after it settles when it is a promise. (Not named
 * `then`: a module exporting `then` is a thenable, and `await import()` of it would misbehave.)
 */
export function andThen<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
