import type { RecallResult } from '../model/api.js';
import type { EngramError } from '../model/errors.js';
import { normalizeTurnText } from '../model/formation/normalize-turn-text.js';
import type { Scope } from '../model/scope.js';
import { asEngramError } from './as-engram-error.js';
import { recallWithinBudget, type CallRecall } from './budgeted-recall.js';
import { formatContextBlock, type ContextBlockOptions } from './context-block.js';
import type { InjectEvent, SkipReason } from './inject-event.js';
import type { PreparedCall } from './prepared-call.js';
import type { ProviderAdapter } from './providers/provider-adapter.js';
import { resolveScope, type ScopeSource } from './scope-source.js';

/** What preparing a call needs, fixed when the injector is built. */
export interface PrepareContext {
  /** Null when recall is off. */
  recall: CallRecall | null;
  scope: ScopeSource;
  budgetMs: number;
  block: ContextBlockOptions | undefined;
  /** Whether capture is on (then the scope is resolved even when nothing is recalled). */
  capture: boolean;
  /** Where capture stores turns when that differs from the call's scope. */
  captureScope: ScopeSource | undefined;
  emit: (event: InjectEvent) => void;
  now: () => number;
}

/**
 * Prepares one call, step by step: the query, the scope and recall within the budget, the context
 * block injected through the adapter, then the capture scope. Every way of not injecting is a
 * `skipped` event and the caller's own request; nothing here ever fails the call.
 */
export async function prepareCall<R>(
  context: PrepareContext,
  adapter: ProviderAdapter,
  request: R,
): Promise<PreparedCall<R>> {
  let call: PreparedCall<R>;
  try {
    call = await recallAndInject(context, adapter, request);
  } catch (error) {
    // Nothing in preparation may fail the caller's call: send it as it came.
    call = skip(context, adapter, request, 'recall-error', null, null, {
      error: asEngramError(error, 'INTERNAL', 'injection failed'),
    });
  }
  if (context.captureScope !== undefined) {
    call.captureScope = await resolveScope(context.captureScope, request).catch(() => null);
  }
  return call;
}

async function recallAndInject<R>(
  context: PrepareContext,
  adapter: ProviderAdapter,
  request: R,
): Promise<PreparedCall<R>> {
  const query = safeQuery(adapter, request);
  // Without recall, the scope is still wanted by capture.
  const scopeForCapture = async (): Promise<Scope | null> =>
    context.capture ? resolveScope(context.scope, request).catch(() => null) : null;
  if (context.recall === null) return skip(context, adapter, request, 'disabled', query, await scopeForCapture());
  if (query === null) return skip(context, adapter, request, 'no-query', null, await scopeForCapture());

  const recalled = await recallWithinBudget(
    context.recall,
    context.scope,
    request,
    query,
    context.budgetMs,
    context.now,
  );
  const { recallMs } = recalled;
  switch (recalled.kind) {
    case 'timeout':
      return skip(context, adapter, request, 'timeout', query, recalled.scope, { recallMs, error: recalled.error });
    case 'error':
      return skip(context, adapter, request, 'recall-error', query, recalled.scope, {
        recallMs,
        error: recalled.error,
      });
    case 'no-scope':
      return skip(context, adapter, request, 'no-scope', query, null, { recallMs });
    case 'ok':
      return injectHits(context, adapter, request, query, recalled.scope, recalled.result, recallMs);
  }
}

/** Formats the hits as the context block and injects it; a call it cannot change is skipped. */
function injectHits<R>(
  context: PrepareContext,
  adapter: ProviderAdapter,
  request: R,
  query: string,
  scope: Scope,
  result: RecallResult,
  recallMs: number,
): PreparedCall<R> {
  // A memory that only repeats the message (a captured copy of the same question) tells the model nothing.
  const asked = normalizeTurnText(query);
  const hits = result.hits.filter((hit) => normalizeTurnText(hit.memory.text) !== asked);
  if (hits.length === 0) {
    const reason = result.cut.length > 0 ? 'below-threshold' : 'no-hits';
    return skip(context, adapter, request, reason, query, scope, { recallMs });
  }
  const injectStarted = context.now();
  let block;
  try {
    block = formatContextBlock(hits, context.block);
  } catch (error) {
    return skip(context, adapter, request, 'recall-error', query, scope, {
      recallMs,
      error: asEngramError(error, 'INVALID_INPUT', 'context block failed'),
    });
  }
  if (block === null) return skip(context, adapter, request, 'empty-block', query, scope, { recallMs });
  const injected = adapter.injectBlock(request, block.text);
  const injectMs = context.now() - injectStarted;
  if (injected === request) return skip(context, adapter, request, 'unsupported-request', query, scope, { recallMs });
  context.emit({
    type: 'injected',
    provider: adapter.name,
    query,
    scope,
    memories: block.included.length,
    omittedMemories: block.omittedMemories,
    chars: block.chars,
    approxTokens: block.approxTokens,
    recallMs,
    injectMs,
    timings: result.timings,
  });
  return { request: injected, query, scope, captureScope: scope, injected: true };
}

/** The call as it came, with a `skipped` event saying why. */
function skip<R>(
  context: PrepareContext,
  adapter: ProviderAdapter,
  request: R,
  reason: SkipReason,
  query: string | null,
  scope: Scope | null,
  extra: { recallMs?: number; error?: EngramError } = {},
): PreparedCall<R> {
  context.emit({ type: 'skipped', provider: adapter.name, reason, query, ...extra });
  return { request, query, scope, captureScope: scope, injected: false };
}

/** The adapter's query of the request; a request it cannot read has none. */
function safeQuery(adapter: ProviderAdapter, request: unknown): string | null {
  try {
    return adapter.extractQuery(request);
  } catch {
    return null;
  }
}
