import type { MemoryInput } from '../model/memory.js';
import type { MemoryType } from '../model/memory-type.js';
import { asEngramError } from './as-engram-error.js';
import type { InjectEvent } from './inject-event.js';
import type { PreparedCall } from './prepared-call.js';
import type { ProviderAdapter } from './providers/provider-adapter.js';
import type { MemoryWriter } from './recaller.js';
import type { ScopeSource } from './scope-source.js';
import type { StreamTap } from './tap-stream.js';

/** Options of capture: storing the user's message and the assistant's reply after each call. */
export interface CaptureOptions {
  /** Where captured turns go (the facade or the remote client). */
  writer: MemoryWriter;
  /** Store the user's message. @default true */
  user?: boolean | undefined;
  /** Store the assistant's reply. @default true */
  assistant?: boolean | undefined;
  /** Memory type of captured turns. @default 'WorkingMemory' */
  type?: MemoryType | undefined;
  /** Tags added to captured turns. @default [] */
  tags?: string[] | undefined;
  /**
   * Scope the turns are stored in, when it differs from the recall scope — e.g. recall over all
   * of a user's memories, store into the current session. A function gets the request.
   * @default the call's scope
   */
  scope?: ScopeSource | undefined;
}

/** Capture of a wrapper's calls, running in the background. */
export interface TurnCapture {
  /** Schedules capture of a complete response. Never throws. */
  response(adapter: ProviderAdapter, call: PreparedCall<unknown>, response: unknown): void;
  /** A tap that captures a streamed reply once the stream completes. */
  streamTap(adapter: ProviderAdapter, call: PreparedCall<unknown>): StreamTap<unknown>;
  /** Resolves when every capture scheduled so far has settled. */
  idle(): Promise<void>;
}

/**
 * Capture stores the user's message and the assistant's reply each verbatim as one memory (by
 * default WorkingMemory, with the chat role as source) in the call's capture scope, in one
 * `addMany` per call, in the background. `captured` / `capture-failed` events say how it went.
 */
export function createTurnCapture(capture: CaptureOptions, emit: (event: InjectEvent) => void): TurnCapture {
  const pending = new Set<Promise<void>>();

  const store = (adapter: ProviderAdapter, call: PreparedCall<unknown>, reply: string | null): void => {
    if (call.captureScope === null) return;
    const scope = call.captureScope;
    const inputs = turnInputs(capture, adapter, call.query, reply);
    if (inputs.length === 0) return;
    const job = Promise.resolve()
      .then(() => capture.writer.addMany(inputs, { scope }))
      .then(
        (memories) => emit({ type: 'captured', provider: adapter.name, scope, count: memories.length }),
        (error: unknown) =>
          emit({
            type: 'capture-failed',
            provider: adapter.name,
            error: asEngramError(error, 'INTERNAL', 'capture failed'),
          }),
      );
    pending.add(job);
    void job.finally(() => pending.delete(job));
  };

  return {
    response(adapter, call, response) {
      let reply: string | null = null;
      try {
        reply = adapter.replyText(response);
      } catch {
        reply = null;
      }
      store(adapter, call, reply);
    },
    streamTap(adapter, call) {
      const parts: string[] = [];
      return {
        onChunk(chunk) {
          const text = adapter.streamDeltaText(chunk);
          if (text !== null) parts.push(text);
        },
        onEnd(completed) {
          if (completed) store(adapter, call, parts.join(''));
        },
      };
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

/** The memories one call's turns become (none for a turn that is off, absent or blank). */
function turnInputs(
  capture: CaptureOptions,
  adapter: ProviderAdapter,
  query: string | null,
  reply: string | null,
): MemoryInput[] {
  const base = {
    type: capture.type ?? 'WorkingMemory',
    tags: capture.tags ?? [],
    statedAt: new Date().toISOString(),
    metadata: { capturedBy: 'engram-inject', provider: adapter.name },
  } satisfies Partial<MemoryInput>;
  const inputs: MemoryInput[] = [];
  if ((capture.user ?? true) && query !== null) {
    inputs.push({ ...base, text: query, sources: [{ type: 'chat', role: 'user' }] });
  }
  if ((capture.assistant ?? true) && reply !== null && reply.trim() !== '') {
    inputs.push({ ...base, text: reply, sources: [{ type: 'chat', role: 'assistant' }] });
  }
  return inputs;
}
