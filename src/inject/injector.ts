import type { RecallOptions } from '../model/api.js';
import { EngramError } from '../model/errors.js';
import type { CallRecall } from './budgeted-recall.js';
import { formatContextBlock, type ContextBlockOptions } from './context-block.js';
import { guardListener } from './guard-listener.js';
import type { InjectEventListener } from './inject-event.js';
import { prepareCall } from './prepare-call.js';
import type { PreparedCall } from './prepared-call.js';
import type { ProviderAdapter } from './providers/provider-adapter.js';
import type { Recaller } from './recaller.js';
import type { ScopeSource } from './scope-source.js';
import type { StreamTap } from './tap-stream.js';
import { createTurnCapture, type CaptureOptions } from './turn-capture.js';

/** Recall options a wrapper passes through (the scope and signal are the wrapper's). */
export type InjectRecallOptions = Omit<RecallOptions, 'scope' | 'signal'>;

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

/** The tap of a call whose reply is not captured. */
const IGNORE_STREAM: StreamTap<unknown> = { onChunk: () => undefined, onEnd: () => undefined };

/**
 * Builds the shared engine of the wrappers: scope resolution, budgeted recall, context block,
 * injection through a {@link ProviderAdapter} ({@link prepareCall}), background capture
 * ({@link createTurnCapture}), and events.
 *
 * @throws EngramError('CONFIG_ERROR') when recall is on but no recaller is given, or the budget or block options are invalid.
 */
export function createInjector(options: InjectorOptions): Injector {
  const recall = checkRecall(options);
  const budgetMs = checkBudget(options.budgetMs);
  checkBlockOptions(options.block);
  const captureOptions = options.capture === false || options.capture === undefined ? null : options.capture;
  const emit = guardListener(options.onEvent);
  const capture = captureOptions === null ? null : createTurnCapture(captureOptions, emit);
  const context = {
    recall,
    scope: options.scope,
    budgetMs,
    block: options.block,
    capture: capture !== null,
    captureScope: captureOptions?.scope,
    emit,
    now: options.now ?? (() => performance.now()),
  };
  return {
    passThrough: recall === null && capture === null,
    prepare: (adapter, request) => prepareCall(context, adapter, request),
    captureResponse: (adapter, call, response) => capture?.response(adapter, call, response),
    streamTap: (adapter, call) => capture?.streamTap(adapter, call) ?? IGNORE_STREAM,
    idle: async () => capture?.idle(),
  };
}

/** The recaller and its options, or null when recall is off. */
function checkRecall(options: InjectorOptions): CallRecall | null {
  if (options.recall === false) return null;
  if (options.recaller === undefined) {
    throw new EngramError('CONFIG_ERROR', 'a recaller is required unless recall is false');
  }
  return { recaller: options.recaller, options: options.recall ?? {} };
}

function checkBudget(given: number | undefined): number {
  const budgetMs = given ?? 250;
  if (!Number.isFinite(budgetMs) || budgetMs <= 0) {
    throw new EngramError('CONFIG_ERROR', `budgetMs must be a positive number, got ${String(budgetMs)}`);
  }
  return budgetMs;
}

/** Formats an empty block once so that bad block options fail at build time, not per call. */
function checkBlockOptions(block: ContextBlockOptions | undefined): void {
  try {
    formatContextBlock([], block);
  } catch (error) {
    throw new EngramError(
      'CONFIG_ERROR',
      `invalid block options: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
