import type { Scope } from '../model/scope.js';
import type { FacadeContext } from './facade-context.js';
import { recallInScope } from './recall-in-scope.js';
import { scopeFilter } from './scope-filter.js';

/** Characters of a stored text a warm-up recall queries with (a question's length, not a document's). */
const WARM_QUERY_CHARS = 120;

/**
 * Recalls of the scope as a caller's recall runs them (options checked, the query masked, flagged
 * memories withheld, hits explained) that record no usage: they compile the read path and read its
 * first rows. Their queries are the scope's `count` newest texts, so the lexical channel and the
 * fusion run as for a real question ('warm up' in an empty scope); the dense channel uses `queryVector`.
 */
export async function warmRecall(
  ctx: FacadeContext,
  scope: Scope,
  queryVector: Float32Array,
  count: number,
): Promise<void> {
  const newest = await ctx.store.list(scopeFilter({ scope }), {
    limit: Math.max(1, count),
    order: 'updatedAt',
    direction: 'desc',
  });
  const queries = newest.items.map((m) => m.text.slice(0, WARM_QUERY_CHARS));
  for (const text of queries.length > 0 ? queries : ['warm up']) {
    await recallInScope(ctx, text, { scope, limit: 10, threshold: 0, vector: queryVector }, false);
  }
}
