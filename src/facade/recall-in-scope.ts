import type { RecallResult } from '../model/api.js';
import { distinctHits, withValidity } from '../model/distinct-hits.js';
import { EngramError } from '../model/errors.js';
import { RECALL_OPTION_NAMES, RECALL_PROFILE_NAMES, rejectUnknownFields } from '../model/request-fields.js';
import { resolveValidity } from '../model/resolve-validity.js';
import { validateLimit, validateNumber, validateText } from '../model/validate.js';
import { runRecall } from '../recall/recall-pipeline.js';
import { RECALL_PROFILES } from '../recall/recall-profile.js';
import { rankWithholding } from '../recall/withhold-flagged.js';
import { calibratedWeights } from './calibrated-weights.js';
import type { LocalRecallOptions } from './engram-options.js';
import type { FacadeContext } from './facade-context.js';
import { checkFiniteNumber, checkOneOf } from './request-checks.js';
import { scopeFilter } from './scope-filter.js';

/**
 * The facade's recall: options checked (unknown fields too), the query masked like a memory and
 * embedded (or the caller's vector checked), the core recall ranked with flagged memories withheld
 * unless asked for and each normalised text shown once, validity applied. Records the hits' use
 * only when `track` (formation's neighbour lookups do not).
 */
export async function recallInScope(
  ctx: FacadeContext,
  query: string,
  options: LocalRecallOptions,
  track: boolean,
): Promise<RecallResult> {
  const filter = scopeFilter({ scope: options?.scope, types: options.types });
  rejectUnknownFields(options, RECALL_OPTION_NAMES, 'recall');
  checkFiniteNumber(options.lexicalWeight, 'lexicalWeight');
  checkFiniteNumber(options.lexicalWeightShort, 'lexicalWeightShort');
  const hasVector = options.vector !== undefined;
  const asked = hasVector && query === '' ? '' : validateText(query, ctx.limits.maxQueryLength, 'query');
  // A query holds what users paste too: masked like a memory before it is embedded.
  const text = await ctx.guard.query(asked, filter.scope.tenant);
  const limit = validateLimit(options.limit ?? ctx.recallDefaults.limit, ctx.limits.maxLimit);
  const threshold = validateNumber(options.threshold ?? ctx.recallDefaults.threshold, -1, 1, 'threshold');
  checkOneOf(options.profile, RECALL_PROFILE_NAMES, 'profile');
  const profile = RECALL_PROFILES[options.profile ?? ctx.recallDefaults.profile];
  if (!profile)
    throw new EngramError('CONFIG_ERROR', `recall.profile must be one of: ${RECALL_PROFILE_NAMES.join(', ')}`);
  const validity = resolveValidity(options, ctx.clock);
  filter.validAt = validity.validAt;
  const weights = profile.resolveWeights({
    option: { base: options.lexicalWeight, short: options.lexicalWeightShort },
    config: ctx.recallDefaults.lexicalWeights,
    env: ctx.options.env ?? process.env,
    calibrated: calibratedWeights(ctx.recallDefaults, ctx.embedder),
  });
  await ctx.embedding.checkModel(filter.scope);
  const embedStart = performance.now();
  let queryVector: Float32Array;
  if (hasVector) {
    queryVector = await ctx.embedding.givenVector(options.vector, filter.scope, 'vector', text);
  } else {
    [queryVector] = (await ctx.embedding.embed([text], 'query')) as [Float32Array];
  }
  const embedMs = performance.now() - embedStart;
  const rank = (n: number) =>
    ctx.withRetry(() =>
      runRecall(
        { store: ctx.store, tokenCache: ctx.tokenCache },
        { query: text, queryVector, model: ctx.embedder.model, filter, limit: n, threshold, weights, profile },
        embedMs,
      ),
    );
  const include = options.includeFlagged === true;
  // Memories flagged as instructions are withheld (listed with the reason) unless asked for.
  let result = await rankWithholding(rank, limit, ctx.limits.maxLimit, include);
  // Two memories with the same normalised text are shown once: rank deeper to fill the gap.
  const repeated = result.hits.length - distinctHits(result.hits).length;
  if (repeated > 0)
    result = await rankWithholding(rank, Math.min(limit + repeated, ctx.limits.maxLimit), ctx.limits.maxLimit, include);
  const hits = distinctHits(result.hits).slice(0, limit);
  const cut = distinctHits([...hits, ...result.cut]).slice(hits.length);
  const explained = validity.includeSuperseded
    ? { hits: withValidity(hits, validity.at), cut: withValidity(cut, validity.at) }
    : { hits, cut };
  if (track && explained.hits.length > 0) {
    ctx.recordUsage(
      filter.scope.tenant,
      explained.hits.map((h) => h.memory.id),
    );
  }
  return { query: text, ...result, ...explained };
}
