import type { PreparedCall } from '../prepared-call.js';
import { bedrockConverse } from '../providers/bedrock-converse.js';
import { bedrockInvokeAnthropic } from '../providers/bedrock-invoke-anthropic.js';
import { isRecord } from '../providers/json-guards.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import { tapAsyncIterable } from '../tap-stream.js';
import { interceptClient } from './intercept-client.js';
import { toInjector, type WrapperOptions } from './wrapper-options.js';

/** The parts of a Smithy command the wrapper touches. */
interface CommandLike {
  input: unknown;
  middlewareStack?: { identify?: () => unknown[]; clone?: () => unknown };
}

type CommandConstructor = new (input: unknown) => CommandLike;

function isCommand(value: unknown): value is CommandLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    'input' in value &&
    typeof (value as { constructor?: unknown }).constructor === 'function'
  );
}

/** Converse / ConverseStream inputs have `messages`; InvokeModel* inputs have `body`. */
function adapterFor(input: unknown): ProviderAdapter | null {
  if (!isRecord(input) || typeof input['modelId'] !== 'string') return null;
  if (Array.isArray(input['messages'])) return bedrockConverse;
  if (input['body'] !== undefined) return bedrockInvokeAnthropic;
  return null;
}

/** The same kind of command with a new input; middleware the caller added to the command is kept. */
function withInput(command: CommandLike, input: unknown): CommandLike {
  const Ctor = command.constructor as CommandConstructor;
  const next = new Ctor(input);
  const stack = command.middlewareStack;
  if (stack?.identify !== undefined && stack.clone !== undefined && stack.identify().length > 0) {
    next.middlewareStack = stack.clone() as CommandLike['middlewareStack'];
  }
  return next;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/**
 * Wraps an `@aws-sdk/client-bedrock-runtime` `BedrockRuntimeClient`: `send()` of Converse,
 * ConverseStream, InvokeModel and InvokeModelWithResponseStream (Anthropic bodies) commands gets
 * the user's memories, and capture stores the turn afterwards, streamed or not. Other commands,
 * and the callback form of `send`, pass through untouched.
 *
 * A command that gets memories is sent as a new command of the same class (the caller's command
 * object is never modified). The client itself is not changed.
 */
export function wrapBedrock<C extends object>(client: C, options: WrapperOptions): C {
  const injector = toInjector(options);
  return interceptClient(client, {
    send: (original, args) => {
      const [command, ...rest] = args;
      if (injector.passThrough || !isCommand(command) || rest.some((a) => typeof a === 'function'))
        return original(...args);
      const adapter = adapterFor(command.input);
      if (adapter === null) return original(...args);
      return injector.prepare(adapter, command.input).then(async (call: PreparedCall<unknown>) => {
        const toSend = call.request === command.input ? command : withInput(command, call.request);
        const output: unknown = await original(toSend, ...rest);
        if (!isRecord(output)) return output;
        if (isAsyncIterable(output['stream'])) {
          return { ...output, stream: tapAsyncIterable(output['stream'], injector.streamTap(adapter, call)) };
        }
        if (isAsyncIterable(output['body'])) {
          return { ...output, body: tapAsyncIterable(output['body'], injector.streamTap(adapter, call)) };
        }
        injector.captureResponse(adapter, call, output);
        return output;
      });
    },
  });
}
