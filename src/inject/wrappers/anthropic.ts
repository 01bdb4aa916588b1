import { anthropicMessages } from '../providers/anthropic-messages.js';
import { interceptClient } from './intercept-client.js';
import { stainlessMethod } from './stainless-method.js';
import { toInjector, type WrapperOptions } from './wrapper-options.js';

/**
 * Wraps an `@anthropic-ai/sdk` client: `messages.create` and `beta.messages.create` — and
 * through them `messages.stream()` — get the user's memories appended to `system`
 * (cache_control breakpoints kept), and capture stores the turn afterwards.
 *
 * The client itself is not changed; the returned view has the client's own type.
 */
export function wrapAnthropic<C extends object>(client: C, options: WrapperOptions): C {
  const injector = toInjector(options);
  const handler = stainlessMethod(injector, anthropicMessages);
  return interceptClient(client, {
    'messages.create': handler,
    'beta.messages.create': handler,
  });
}
