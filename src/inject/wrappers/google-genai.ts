import { googleGenai } from '../providers/google-genai.js';
import { interceptClient } from './intercept-client.js';
import { tapAsyncIterator } from '../tap-stream.js';
import { toInjector, type WrapperOptions } from './wrapper-options.js';

/**
 * Wraps a `@google/genai` `GoogleGenAI` instance: `models.generateContent` and
 * `models.generateContentStream` get the user's memories in `config.systemInstruction`, and
 * capture stores the turn afterwards (streamed chunks are passed on as they arrive).
 *
 * Chat sessions made with `chats.create()` on the view go through the wrapper too (each
 * `sendMessage` / `sendMessageStream` recalls for its message; the block never enters the
 * session's history). The client itself is not changed; the returned view has the client's own
 * type.
 */
export function wrapGoogleGenAI<C extends object>(client: C, options: WrapperOptions): C {
  const injector = toInjector(options);
  return interceptClient(
    client,
    {
      'models.generateContent': (original, args) => {
        if (injector.passThrough) return original(...args);
        const [params, ...rest] = args;
        return injector.prepare(googleGenai, params).then(async (call) => {
          const response = await original(call.request, ...rest);
          injector.captureResponse(googleGenai, call, response);
          return response;
        });
      },
      'models.generateContentStream': (original, args) => {
        if (injector.passThrough) return original(...args);
        const [params, ...rest] = args;
        return injector.prepare(googleGenai, params).then(async (call) => {
          const stream = (await original(call.request, ...rest)) as AsyncGenerator<unknown>;
          return tapAsyncIterator(stream, injector.streamTap(googleGenai, call));
        });
      },
    },
    { 'chats.modelsModule': 'models' },
  );
}
