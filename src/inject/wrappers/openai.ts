import { openaiChat } from '../providers/openai-chat.js';
import { openaiResponses } from '../providers/openai-responses.js';
import { interceptClient } from './intercept-client.js';
import { stainlessMethod } from './stainless-method.js';
import { toInjector, type WrapperOptions } from './wrapper-options.js';

/**
 * Wraps an `openai` client (v5+): `chat.completions.create` and `responses.create` — and through
 * them the SDK's `parse()`, `stream()` and `runTools()` helpers — get the user's memories, and
 * (with capture on) the user's message and the reply are stored afterwards, streamed or not.
 *
 * The client itself is not changed; the returned view has the client's own type.
 *
 * @example
 * const openai = wrapOpenAI(new OpenAI(), { recaller: engram, scope: { tenant: 't1', user: 'u1' } });
 */
export function wrapOpenAI<C extends object>(client: C, options: WrapperOptions): C {
  const injector = toInjector(options);
  return interceptClient(client, {
    'chat.completions.create': stainlessMethod(injector, openaiChat),
    'responses.create': stainlessMethod(injector, openaiResponses),
  });
}
