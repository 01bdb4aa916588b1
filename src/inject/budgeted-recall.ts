import type { RecallOptions, RecallResult } from '../model/api.js';
import { EngramError } from '../model/errors.js';
import type { Scope } from '../model/scope.js';
import { asEngramError } from './as-engram-error.js';
import type { Recaller } from './recaller.js';
import { resolveScope, type ScopeSource } from './scope-source.js';

/** Recall for one call, with the options the wrapper passes through. */
export interface CallRecall {
  recaller: Recaller;
  options: Omit<RecallOptions, 'scope' | 'signal'>;
}

/** How scope resolution and recall ended within the budget; `recallMs` is the time they took. */
export type BudgetedRecall =
  | { kind: 'ok'; scope: Scope; result: RecallResult; recallMs: number }
  | { kind: 'no-scope'; recallMs: number }
  /** `scope` is what had been resolved when the budget ran out or the failure came. */
  | { kind: 'timeout' | 'error'; scope: Scope | null; recallMs: number; error: EngramError };

/**
 * Resolves the call's scope and recalls for `query`, racing both against `budgetMs`. Past the
 * budget the recall is aborted and the outcome is a retryable `TIMEOUT`; a failure of either step
 * is an `error` outcome. Never rejects.
 */
export async function recallWithinBudget(
  recall: CallRecall,
  scopeSource: ScopeSource,
  request: unknown,
  query: string,
  budgetMs: number,
  now: () => number,
): Promise<BudgetedRecall> {
  const started = now();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ kind: 'timeout' }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), budgetMs);
  });
  let scope: Scope | null = null;
  const work = (async () => {
    const resolved = await resolveScope(scopeSource, request);
    scope = resolved;
    if (resolved === null) return { kind: 'no-scope' as const };
    const result = await recall.recaller.recall(query, {
      ...recall.options,
      scope: resolved,
      signal: controller.signal,
    });
    return { kind: 'ok' as const, scope: resolved, result };
  })().then(
    (value) => value,
    (error: unknown) => ({ kind: 'error' as const, error }),
  );
  const outcome = await Promise.race([work, timeout]);
  clearTimeout(timer);
  const recallMs = now() - started;
  switch (outcome.kind) {
    case 'timeout': {
      controller.abort();
      const error = new EngramError('TIMEOUT', `recall took longer than its ${budgetMs} ms budget`, {
        isRetryable: true,
        details: { budgetMs },
      });
      return { kind: 'timeout', scope, recallMs, error };
    }
    case 'error':
      return { kind: 'error', scope, recallMs, error: asEngramError(outcome.error, 'INTERNAL', 'recall failed') };
    case 'no-scope':
      return { kind: 'no-scope', recallMs };
    case 'ok':
      return { ...outcome, recallMs };
  }
}
