import type { MemoryInput } from '../model/memory.js';
import type { MemoryType } from '../model/memory-type.js';
import { asEngramError } from './as-engram-error.js';
import type { InjectEvent } from './inject-event.js';
import type { PreparedCall } from './prepared-call.js';
import type { ProviderAdapter } from './providers/provider-adapter.js';
import type { FormationWriter, MemoryWriter } from './recaller.js';
import type { Scope } from '../model/scope.js';
import type { TurnInput } from '../model/formation/episode.js';
import type { ScopeSource } from './scope-source.js';
import type { StreamTap } from './tap-stream.js';

/** Options of capture: storing the user's message and the assistant's reply after each call. */
export interface CaptureOptions {
  /** Where captured turns go (the facade or the remote client). */
  writer: MemoryWriter;
  /**
   * Capture through memory formation: the turns are stored as episodes with `remember` (a text
   * already in the scope adds a count, not a row) and, when an LLM is configured, batched with
   * the session's next turns into facts in the background. False stores each turn verbatim with
   * `addMany` (as a memory of `type` with `tags`). @default true when the writer has `remember`
   */
  formation?: boolean | undefined;
  /** Store the user's message. @default true */
  user?: boolean | undefined;
  /** Store the assistant's reply. @default true */
  assistant?: boolean | undefined;
  /** Memory type of captured turns without formation (episodes are always `WorkingMemory`). @default 'WorkingMemory' */
  type?: MemoryType | undefined;
  /** Tags added to captured turns without formation. @default [] */
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

/** The writer's `remember` when capture goes through formation, else null. */
function rememberOf(capture: CaptureOptions): FormationWriter['remember'] | null {
  const remember = capture.writer.remember;
  if (capture.formation === false || typeof remember !== 'function') return null;
  return remember.bind(capture.writer);
}

/**
 * Capture stores the user's message and the assistant's reply in the call's capture scope, in
 * the background, after the call: through formation (`remember`, the default when the writer
 * has it) as episodes that merge repeated texts and feed the formation of facts, or verbatim
 * (`addMany`, one memory per turn, by default WorkingMemory with the chat role as source).
 * `captured` / `capture-failed` events say how it went; the wrapped call never waits for it.
 */
export function createTurnCapture(capture: CaptureOptions, emit: (event: InjectEvent) => void): TurnCapture {
  const pending = new Set<Promise<void>>();
  const remember = rememberOf(capture);

  const write = (
    scope: Scope,
    query: string | null,
    reply: string | null,
    adapter: ProviderAdapter,
  ): Promise<number> | null => {
    if (remember) {
      const turns = captureTurns(capture, query, reply);
      return turns.length === 0 ? null : remember(turns, { scope, origin: 'capture' }).then((r) => r.turns.length);
    }
    const inputs = turnInputs(capture, adapter, query, reply);
    return inputs.length === 0 ? null : capture.writer.addMany(inputs, { scope }).then((m) => m.length);
  };

  const store = (adapter: ProviderAdapter, call: PreparedCall<unknown>, reply: string | null): void => {
    if (call.captureScope === null) return;
    const scope = call.captureScope;
    const query = call.query;
    // On a later turn of the event loop, not in a microtask: the caller resumes with its answer
    // before any of capture's work (validation, embedding, a synchronous SQLite write) runs.
    const job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => write(scope, query, reply, adapter))
      .then(
        (count) => {
          if (count !== null) emit({ type: 'captured', provider: adapter.name, scope, count });
        },
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

/** The turns of one call for `remember` (none for a turn that is off, absent or blank). */
function captureTurns(capture: CaptureOptions, query: string | null, reply: string | null): TurnInput[] {
  const at = new Date().toISOString();
  const turns: TurnInput[] = [];
  if ((capture.user ?? true) && query !== null && query.trim() !== '')
    turns.push({ role: 'user', text: query, occurredAt: at });
  if ((capture.assistant ?? true) && reply !== null && reply.trim() !== '')
    turns.push({ role: 'assistant', text: reply, occurredAt: at });
  return turns;
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
