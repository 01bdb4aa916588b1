/** What the Stainless SDKs' `APIPromise` offers beyond a Promise (only what is forwarded). */
interface ApiPromiseLike {
  withResponse(): Promise<{ data: unknown }>;
  asResponse(): Promise<unknown>;
  _thenUnwrap(transform: (data: unknown, props: unknown) => unknown): unknown;
}

function hasMethod<K extends string>(value: unknown, name: K): value is Record<K, (...args: unknown[]) => unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[name] === 'function';
}

/** The SDK call once the request is prepared: its result, and how to observe the data it yields. */
export interface PendingCall {
  /** What the original method returned (an `APIPromise` for OpenAI / Anthropic). */
  value: unknown;
  /** Sees the data once (captures or taps a stream) and returns what the caller should get. */
  observe(data: unknown): unknown;
}

/**
 * Stands in for an `APIPromise` while recall runs. Like `APIPromise`, it is lazy: nothing is
 * awaited or parsed until `then` / `catch` / `finally` / `withResponse()` is used, so
 * `asResponse()` still hands the caller an unread response body.
 */
export class DeferredApiPromise<T> extends Promise<T> {
  readonly #pending: Promise<PendingCall>;
  #settled: Promise<T> | undefined;

  constructor(pending: Promise<PendingCall>) {
    super((resolve) => resolve(null as T));
    this.#pending = pending;
    // Like APIPromise: a failure surfaces where the caller awaits, never as an unhandled rejection.
    pending.catch(() => undefined);
  }

  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  #data(): Promise<T> {
    this.#settled ??= this.#pending.then(async (call) => call.observe(await call.value) as T);
    return this.#settled;
  }

  override then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#data().then(onfulfilled, onrejected);
  }

  override catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#data().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#data().finally(onfinally);
  }

  /** Forwards to `APIPromise.withResponse()`; `data` is observed like the awaited value. */
  withResponse(): Promise<{ data: unknown }> {
    return this.#pending.then(async (call) => {
      if (!hasMethod(call.value, 'withResponse')) return { data: call.observe(await call.value) };
      const result = await (call.value as unknown as ApiPromiseLike).withResponse();
      return { ...result, data: call.observe(result.data) };
    });
  }

  /** Forwards to `APIPromise.asResponse()`: the raw response, not observed (its body is the caller's). */
  asResponse(): Promise<unknown> {
    return this.#pending.then((call) => {
      if (!hasMethod(call.value, 'asResponse')) return call.value;
      return (call.value as unknown as ApiPromiseLike).asResponse();
    });
  }

  /** Forwards to the SDK's internal `_thenUnwrap` (used by `parse()` helpers); the raw data is observed first. */
  _thenUnwrap(transform: (data: unknown, props: unknown) => unknown): DeferredApiPromise<unknown> {
    return new DeferredApiPromise(
      this.#pending.then((call) => {
        if (!hasMethod(call.value, '_thenUnwrap')) {
          return {
            value: Promise.resolve(call.value).then((d) => transform(call.observe(d), undefined)),
            observe: (d: unknown) => d,
          };
        }
        const value = (call.value as unknown as ApiPromiseLike)._thenUnwrap((data, props) =>
          transform(call.observe(data), props),
        );
        return { value, observe: (d: unknown) => d };
      }),
    );
  }
}
