/** Callbacks of {@link tapAsyncIterator}. Exceptions they throw are swallowed. */
export interface StreamTap<T> {
  /** Called with each chunk before it is handed to the consumer. */
  onChunk(chunk: T): void;
  /** Called once: `completed` is true when the source ended normally. */
  onEnd(completed: boolean): void;
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // A tap never disturbs the stream.
  }
}

/**
 * Passes every chunk of `source` through unchanged and unbuffered (the consumer sees each chunk
 * as soon as the source yields it) while `tap` observes it. Early `return()` / `throw()` by the
 * consumer are forwarded to the source.
 */
export function tapAsyncIterator<T>(source: AsyncIterator<T>, tap: StreamTap<T>): AsyncIterableIterator<T> {
  let ended = false;
  const end = (completed: boolean): void => {
    if (ended) return;
    ended = true;
    safely(() => tap.onEnd(completed));
  };
  const iterator: AsyncIterableIterator<T> = {
    async next(...args: [] | [unknown]): Promise<IteratorResult<T>> {
      let result: IteratorResult<T>;
      try {
        result = await source.next(...args);
      } catch (error) {
        end(false);
        throw error;
      }
      if (result.done === true) end(true);
      else safely(() => tap.onChunk(result.value));
      return result;
    },
    async return(value?: unknown): Promise<IteratorResult<T>> {
      end(false);
      if (source.return) return source.return(value);
      return { done: true, value: value as T };
    },
    async throw(error?: unknown): Promise<IteratorResult<T>> {
      end(false);
      if (source.throw) return source.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** Wraps an async iterable so each iteration is tapped (see {@link tapAsyncIterator}). */
export function tapAsyncIterable<T>(source: AsyncIterable<T>, tap: StreamTap<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]: () => tapAsyncIterator(source[Symbol.asyncIterator](), tap),
  };
}

/**
 * Taps a web ReadableStream by piping it through an identity TransformStream. `onEnd(true)` fires
 * when the source closes; a stream cancelled by its consumer never reports an end.
 */
export function tapReadableStream<T>(source: ReadableStream<T>, tap: StreamTap<T>): ReadableStream<T> {
  let ended = false;
  const end = (completed: boolean): void => {
    if (ended) return;
    ended = true;
    safely(() => tap.onEnd(completed));
  };
  return source.pipeThrough(
    new TransformStream<T, T>({
      transform(chunk, controller) {
        safely(() => tap.onChunk(chunk));
        controller.enqueue(chunk);
      },
      flush() {
        end(true);
      },
    }),
  );
}

/** Wraps an iterator so that its chunks feed `tap` (see {@link tapAsyncIterator}). */
export function tapIterator<T>(source: AsyncIterator<T>, tap: StreamTap<unknown>): AsyncIterableIterator<T> {
  return tapAsyncIterator(source, tap as StreamTap<T>);
}
