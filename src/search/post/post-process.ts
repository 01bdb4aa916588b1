import type { BucketLimits } from '../../model/bucket-limits.js';
import type { SearchOptions } from '../../model/search-options.js';
import { dedupeByText } from './dedupe-by-text.js';
import { mmrSelect } from './mmr.js';
import { removeNearDuplicates } from './near-duplicates.js';
import type { Scored } from './scored-hit.js';
import { trimByType, trimByTypeKeepingOrder } from './type-buckets.js';

/** The options of a search that shape its post-processing. */
export type PostProcessOptions = Pick<SearchOptions, 'dedupe' | 'threshold' | 'nearDuplicateThreshold' | 'mmrLambda'>;

/**
 * Post-processing of the multi-path searcher: best first, dedupe by text, the score threshold,
 * then — only when asked, since they need the memories' vectors — near-duplicate removal and MMR,
 * and last the per-type buckets (in MMR order when MMR or near-duplicates ran, else by score).
 * `vectorsOf` loads the vectors of the given memory ids.
 */
export async function postProcess<T extends Scored>(
  candidates: readonly T[],
  options: PostProcessOptions,
  limits: BucketLimits,
  vectorsOf: (ids: string[]) => Promise<ReadonlyMap<string, Float32Array>>,
): Promise<T[]> {
  let out = [...candidates].sort((a, b) => b.score - a.score);
  if (options.dedupe !== false) out = dedupeByText(out);
  const threshold = options.threshold ?? 0;
  out = out.filter((c) => c.score >= threshold);
  if (options.nearDuplicateThreshold === undefined && options.mmrLambda === undefined) return trimByType(out, limits);
  const vectors = await vectorsOf(out.map((c) => c.memory.id));
  if (options.nearDuplicateThreshold !== undefined)
    out = removeNearDuplicates(out, vectors, options.nearDuplicateThreshold);
  if (options.mmrLambda !== undefined) out = mmrSelect(out, vectors, out.length, options.mmrLambda);
  return trimByTypeKeepingOrder(out, limits);
}
