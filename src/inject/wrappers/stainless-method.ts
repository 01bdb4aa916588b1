import type { Injector } from '../injector.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import { DeferredApiPromise } from './deferred-api-promise.js';
import type { MethodHandler } from './intercept-client.js';
import { observeOnce } from './observe.js';

/**
 * Handler for a Stainless SDK method `(body, options?) => APIPromise` (OpenAI, Anthropic):
 * recall and inject into `body`, call the original with the caller's other arguments, and
 * return an `APIPromise` stand-in. With recall and capture off it calls straight through.
 */
export function stainlessMethod(injector: Injector, adapter: ProviderAdapter): MethodHandler {
  return (original, args) => {
    if (injector.passThrough) return original(...args);
    const [body, ...rest] = args;
    const pending = injector.prepare(adapter, body).then((call) => ({
      value: original(call.request, ...rest),
      observe: observeOnce(injector, adapter, call),
    }));
    return new DeferredApiPromise(pending);
  };
}
