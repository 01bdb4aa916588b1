import type { LanguageModelV3Middleware } from '@ai-sdk/provider';
import type { PreparedCall } from '../prepared-call.js';
import { aiSdkPrompt } from '../providers/ai-sdk-prompt.js';
import { tapReadableStream } from '../tap-stream.js';
import { toInjector, type WrapperOptions } from './wrapper-options.js';

/** Language-model middleware specification versions this middleware can declare. */
export type AiSdkSpecificationVersion = 'v3' | 'v4';

/**
 * The structural middleware shared by specification v3 (AI SDK 6, `@ai-sdk/provider` 3) and v4
 * (AI SDK 7, `@ai-sdk/provider` 4): both pass `{ params }` with `params.prompt` to
 * `transformParams`, and the same `doGenerate` / `doStream` results to the wrap hooks.
 */
export interface EngramLanguageModelMiddleware<V extends AiSdkSpecificationVersion> {
  readonly specificationVersion: V;
  transformParams(options: { type: 'generate' | 'stream'; params: object }): PromiseLike<object>;
  wrapGenerate(options: { doGenerate: () => PromiseLike<object>; params: object }): PromiseLike<object>;
  wrapStream(options: {
    doStream: () => PromiseLike<{ stream: ReadableStream<unknown> }>;
    params: object;
  }): PromiseLike<object>;
}

/** Options of {@link engramMiddleware}. */
export type EngramMiddlewareOptions<V extends AiSdkSpecificationVersion> = WrapperOptions & {
  /** @default 'v3' (the version of the installed AI SDK 6; use 'v4' with AI SDK 7) */
  specificationVersion?: V | undefined;
};

/**
 * A Vercel AI SDK language-model middleware: `transformParams` adds the context block as a
 * system message in `params.prompt` (after the caller's leading system messages), and
 * `wrapGenerate` / `wrapStream` capture the turn (the stream is passed through unbuffered).
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4.1'), middleware: engramMiddleware({ recaller: engram, scope }) });
 */
export function engramMiddleware(
  options: EngramMiddlewareOptions<'v3'> & { specificationVersion?: 'v3' | undefined },
): LanguageModelV3Middleware;
export function engramMiddleware(
  options: EngramMiddlewareOptions<'v4'> & { specificationVersion: 'v4' },
): EngramLanguageModelMiddleware<'v4'>;
export function engramMiddleware(
  options: EngramMiddlewareOptions<AiSdkSpecificationVersion>,
): LanguageModelV3Middleware | EngramLanguageModelMiddleware<'v4'> {
  const injector = toInjector(options);
  const calls = new WeakMap<object, PreparedCall<unknown>>();
  const specificationVersion = options.specificationVersion ?? 'v3';
  const middleware: EngramLanguageModelMiddleware<AiSdkSpecificationVersion> = {
    specificationVersion,
    async transformParams({ params }) {
      if (injector.passThrough) return params;
      const call = await injector.prepare(aiSdkPrompt, params);
      calls.set(call.request as object, call);
      return call.request as object;
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const call = calls.get(params);
      if (call !== undefined) injector.captureResponse(aiSdkPrompt, call, result);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const result = await doStream();
      const call = calls.get(params);
      if (call === undefined) return result;
      return { ...result, stream: tapReadableStream(result.stream, injector.streamTap(aiSdkPrompt, call)) };
    },
  };
  // Structurally the same hooks; the SDK's own type is stricter about params than we need to be.
  return middleware as unknown as LanguageModelV3Middleware | EngramLanguageModelMiddleware<'v4'>;
}
