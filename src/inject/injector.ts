import type { RecallOptions } from '../model/api.js';
import { EngramError, isEngramError, type EngramErrorCode } from '../model/errors.js';
import type { MemoryInput } from '../model/memory.js';
import type { MemoryType } from '../model/memory-type.js';
import type { Scope } from '../model/scope.js';
import { formatContextBlock, type ContextBlockOptions } from './context-block.js';
import type { InjectEvent, InjectEventListener, SkipReason } from './inject-event.js';
import type { ProviderAdapter } from './providers/provider-adapter.js';
import type { MemoryWriter, Recaller } from './recaller.js';
import { tapAsyncIterator, type StreamTap } from './tap-stream.js';

/**
 * Where a call's scope comes from: fixed per wrapper, or computed per call from the request
 * (e.g. from OpenAI's `user` / `metadata` or Anthropic's `metadata.user_id`). Returning null or
 * undefined means "no memory for this call".
 */
export type ScopeSource = Scope | ((request: unknown) => Scope | null | undefined | Promise<Scope | null | undefined>);

/** Recall options a wrapper passes through (the scope and signal are the wrapper's). */
export type InjectRecallOptions = Omit<RecallOptions, 'scope' | 'signal'>;

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

/** Options shared by every wrapper and the AI SDK middleware. */
export interface InjectorOptions {
  /** Recall source. Required unless `recall` is false. */
  recaller?: Recaller | undefined;
  /** The scope of every call, or a resolver run per call. */
  scope: ScopeSource;
  /**
   * Recall options (limit, threshold, profile, types, weights), or false to turn recall off
   * (the wrapper then costs nothing but a property lookup per call, or capture only).
   * @default {} (limit 5, threshold 0.1)
   */
  recall?: InjectRecallOptions | false | undefined;
  /**
   * Time budget of scope resolution + recall, in milliseconds. Past it the call goes out
   * unchanged and a `skipped` event with reason `timeout` is emitted.
   * @default 250
   */
  budgetMs?: number | undefined;
  /** Format of the context block. @default tag `engram_context`, 20 memories, 4000 chars, 1000 tokens */
  block?: ContextBlockOptions | undefined;
  /** Capture user and assistant turns after each call; off when absent or false. @default false */
  capture?: CaptureOptions | false | undefined;
  /** Receives what happened to each call: injected, skipped (and why), captured, capture failed. */
  onEvent?: InjectEventListener | undefined;
  /** Monotonic clock in milliseconds. @default performance.now */
  now?: (() => number) | undefined;
}

/** A request ready to send, with what capture needs afterwards. */
export interface PreparedCall<R> {
  /** The request to send: the caller's own object when nothing was injected. */
  request: R;
  query: string | null;
  scope: Scope | null;
  /** Where capture stores this call's turns (null: not captured). */
  captureScope: Scope | null;
  injected: boolean;
}

/** What every wrapper delegates to. */
export interface Injector {
  /** True when calls need no work at all (recall off and capture off). */
  readonly passThrough: boolean;
  /** Recalls within the budget and injects the block; never rejects. */
  prepare<R>(adapter: ProviderAdapter, request: R): Promise<PreparedCall<R>>;
  /** Schedules capture of a complete response in the background. Never throws. */
  captureResponse(adapter: ProviderAdapter, call: PreparedCall<unknown>, response: unknown): void;
  /** A tap that captures a streamed reply once the stream completes. */
  streamTap(adapter: ProviderAdapter, call: PreparedCall<unknown>): StreamTap<unknown>;
  /** Resolves when every capture scheduled so far has settled. */
  idle(): Promise<void>;
}

function toEngramError(error: unknown, code: EngramErrorCode, message: string): EngramError {
  return isEngramError(error) ? error : new EngramError(code, message, { cause: error });
}

/** Wraps an iterator so that its chunks feed `tap` (see {@link tapAsyncIterator}). */
export function tapIterator<T>(source: AsyncIterator<T>, tap: StreamTap<unknown>): AsyncIterableIterator<T> {
  return tapAsyncIterator(source, tap as StreamTap<T>);
}

/**
 * Builds the shared engine of the wrappers: scope resolution, budgeted recall, context block,
 * injection through a {@link ProviderAdapter}, background capture, and events.
 *
 * @throws EngramError('CONFIG_ERROR') when recall is on but no recaller is given, or the budget or block options are invalid.
 */
export function createInjector(options: InjectorOptions): Injector {
  const recallOptions = options.recall === false ? null : (options.recall ?? {});
  const recaller = options.recaller;
  if (recallOptions !== null && recaller === undefined) {
    throw new EngramError('CONFIG_ERROR', 'a recaller is required unless recall is false');
  }
  const budgetMs = options.budgetMs ?? 250;
  if (!Number.isFinite(budgetMs) || budgetMs <= 0) {
    throw new EngramError('CONFIG_ERROR', `budgetMs must be a positive number, got ${String(budgetMs)}`);
  }
  try {
    formatContextBlock([], options.block);
  } catch (error) {
    throw new EngramError(
      'CONFIG_ERROR',
      `invalid block options: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const capture = options.capture === false || options.capture === undefined ? null : options.capture;
  const now = options.now ?? (() => performance.now());
  const pending = new Set<Promise<void>>();

  const emit = (event: InjectEvent): void => {
    if (options.onEvent === undefined) return;
    try {
      options.onEvent(event);
    } catch {
      // A listener never breaks the caller's call.
    }
  };

  const resolveScope = async (request: unknown): Promise<Scope | null> => {
    const source = options.scope;
    const scope = typeof source === 'function' ? await source(request) : source;
    return scope ?? null;
  };

  const skip = <R>(
    adapter: ProviderAdapter,
    request: R,
    reason: SkipReason,
    query: string | null,
    scope: Scope | null,
    extra: { recallMs?: number; error?: EngramError } = {},
  ): PreparedCall<R> => {
    emit({ type: 'skipped', provider: adapter.name, reason, query, ...extra });
    return { request, query, scope, captureScope: scope, injected: false };
  };

  const safeQuery = (adapter: ProviderAdapter, request: unknown): string | null => {
    try {
      return adapter.extractQuery(request);
    } catch {
      return null;
    }
  };

  const prepare = async <R>(adapter: ProviderAdapter, request: R): Promise<PreparedCall<R>> => {
    let call: PreparedCall<R>;
    try {
      call = await prepareUnsafe(adapter, request);
    } catch (error) {
      // Nothing in preparation may fail the caller's call: send it as it came.
      call = skip(adapter, request, 'recall-error', null, null, {
        error: toEngramError(error, 'INTERNAL', 'injection failed'),
      });
    }
    const captureScope = capture?.scope;
    if (captureScope !== undefined) {
      try {
        call.captureScope = (typeof captureScope === 'function' ? await captureScope(request) : captureScope) ?? null;
      } catch {
        call.captureScope = null;
      }
    }
    return call;
  };

  const prepareUnsafe = async <R>(adapter: ProviderAdapter, request: R): Promise<PreparedCall<R>> => {
    const query = safeQuery(adapter, request);
    if (recallOptions === null || recaller === undefined) {
      let scope: Scope | null = null;
      if (capture !== null) {
        try {
          scope = await resolveScope(request);
        } catch {
          scope = null;
        }
      }
      return skip(adapter, request, 'disabled', query, scope);
    }
    if (query === null) {
      const scope = capture === null ? null : await resolveScope(request).catch(() => null);
      return skip(adapter, request, 'no-query', null, scope);
    }

    const started = now();
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<{ kind: 'timeout' }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timeout' }), budgetMs);
    });
    let scope: Scope | null = null;
    const work = (async () => {
      scope = await resolveScope(request);
      if (scope === null) return { kind: 'no-scope' as const };
      const result = await recaller.recall(query, { ...recallOptions, scope, signal: controller.signal });
      return { kind: 'ok' as const, result };
    })().then(
      (value) => value,
      (error: unknown) => ({ kind: 'error' as const, error }),
    );
    const outcome = await Promise.race([work, timeout]);
    clearTimeout(timer);
    const recallMs = now() - started;
    if (outcome.kind === 'timeout') {
      controller.abort();
      const error = new EngramError('TIMEOUT', `recall took longer than its ${budgetMs} ms budget`, {
        isRetryable: true,
        details: { budgetMs },
      });
      return skip(adapter, request, 'timeout', query, scope, { recallMs, error });
    }
    if (outcome.kind === 'error') {
      return skip(adapter, request, 'recall-error', query, scope, {
        recallMs,
        error: toEngramError(outcome.error, 'INTERNAL', 'recall failed'),
      });
    }
    if (outcome.kind === 'no-scope') return skip(adapter, request, 'no-scope', query, null, { recallMs });
    const resolvedScope = scope as Scope | null;
    if (resolvedScope === null) return skip(adapter, request, 'no-scope', query, null, { recallMs });

    const hits = outcome.result.hits;
    if (hits.length === 0) {
      const reason = outcome.result.cut.length > 0 ? 'below-threshold' : 'no-hits';
      return skip(adapter, request, reason, query, resolvedScope, { recallMs });
    }
    const injectStarted = now();
    let block;
    try {
      block = formatContextBlock(hits, options.block);
    } catch (error) {
      return skip(adapter, request, 'recall-error', query, resolvedScope, {
        recallMs,
        error: toEngramError(error, 'INVALID_INPUT', 'context block failed'),
      });
    }
    if (block === null) return skip(adapter, request, 'empty-block', query, resolvedScope, { recallMs });
    const injected = adapter.injectBlock(request, block.text);
    const injectMs = now() - injectStarted;
    if (injected === request) return skip(adapter, request, 'unsupported-request', query, resolvedScope, { recallMs });
    emit({
      type: 'injected',
      provider: adapter.name,
      query,
      scope: resolvedScope,
      memories: block.included.length,
      omittedMemories: block.omittedMemories,
      chars: block.chars,
      approxTokens: block.approxTokens,
      recallMs,
      injectMs,
      timings: outcome.result.timings,
    });
    return { request: injected, query, scope: resolvedScope, captureScope: resolvedScope, injected: true };
  };

  const store = (adapter: ProviderAdapter, call: PreparedCall<unknown>, reply: string | null): void => {
    if (capture === null || call.captureScope === null) return;
    const scope = call.captureScope;
    const at = new Date().toISOString();
    const base = {
      type: capture.type ?? 'WorkingMemory',
      tags: capture.tags ?? [],
      statedAt: at,
      metadata: { capturedBy: 'engram-inject', provider: adapter.name },
    } satisfies Partial<MemoryInput>;
    const inputs: MemoryInput[] = [];
    if ((capture.user ?? true) && call.query !== null) {
      inputs.push({ ...base, text: call.query, sources: [{ type: 'chat', role: 'user' }] });
    }
    if ((capture.assistant ?? true) && reply !== null && reply.trim() !== '') {
      inputs.push({ ...base, text: reply, sources: [{ type: 'chat', role: 'assistant' }] });
    }
    if (inputs.length === 0) return;
    const job = Promise.resolve()
      .then(() => capture.writer.addMany(inputs, { scope }))
      .then(
        (memories) => emit({ type: 'captured', provider: adapter.name, scope, count: memories.length }),
        (error: unknown) =>
          emit({
            type: 'capture-failed',
            provider: adapter.name,
            error: toEngramError(error, 'INTERNAL', 'capture failed'),
          }),
      );
    pending.add(job);
    void job.finally(() => pending.delete(job));
  };

  return {
    passThrough: recallOptions === null && capture === null,
    prepare,
    captureResponse(adapter, call, response) {
      if (capture === null) return;
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
          if (capture === null) return;
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
