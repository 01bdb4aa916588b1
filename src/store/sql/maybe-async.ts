/**
 * A value now or later. The SQL engine is written once over both drivers: the SQLite driver answers
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

/** A generator run by {@link steps}, returning `T`. */
export type Steps<T> = Generator<Maybe<unknown>, T, unknown>;

/** A step of a {@link steps} generator: `const rows = yield* wait(sql.all(…))` (typed, plain or awaited). */
export function* wait<T>(value: Maybe<T>): Steps<T> {
  return (yield value) as T;
}

function resume<T>(run: Steps<T>, ok: boolean, input: unknown): Maybe<T> {
  let step = ok ? run.next(input) : run.throw(input);
  for (;;) {
    if (step.done) return step.value;
    const value = step.value;
    if (value instanceof Promise) {
      return value.then(
        (v: unknown) => resume(run, true, v),
        (e: unknown) => resume(run, false, e),
      );
    }
    step = run.next(value);
  }
}

/**
 * Runs a generator of steps written once for both drivers: each value it yields (through
 * {@link wait}) is handed back at once when it is plain and after it settles when it is a promise
 * (a rejection is thrown at the `yield`). With synchronous steps throughout, the whole run is
 * synchronous, so a SQLite transaction written this way never yields to another call.
 */
export function steps<T>(run: Steps<T>): Maybe<T> {
  return resume(run, true, undefined);
}
