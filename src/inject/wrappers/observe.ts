import type { Injector } from '../injector.js';
import type { PreparedCall } from '../prepared-call.js';
import { tapIterator } from '../tap-stream.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';

/** An SDK stream object whose iteration goes through a replaceable `iterator` factory (Stainless SDKs). */
interface StainlessStream {
  iterator: () => AsyncIterator<unknown>;
}

function isStainlessStream(value: unknown): value is StainlessStream {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<string, unknown>)['iterator'] === 'function' &&
    typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/**
 * Returns a function that sees a call's result once: a Stainless `Stream` (OpenAI, Anthropic)
 * gets its per-call `iterator` factory replaced by a tapped one — that object was created for
 * this call and belongs to no one else yet, so `for await`, `tee()` and `toReadableStream()` all
 * feed capture without delaying a chunk; anything else is a complete response and is captured.
 */
export function observeOnce(
  injector: Injector,
  adapter: ProviderAdapter,
  call: PreparedCall<unknown>,
): (data: unknown) => unknown {
  let seen = false;
  return (data) => {
    if (seen) return data;
    seen = true;
    if (isStainlessStream(data)) {
      const original = data.iterator;
      const tap = injector.streamTap(adapter, call);
      data.iterator = () => tapIterator(original(), tap);
      return data;
    }
    injector.captureResponse(adapter, call, data);
    return data;
  };
}
