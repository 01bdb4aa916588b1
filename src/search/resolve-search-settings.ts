import { DEFAULT_BUCKET_LIMITS, type BucketLimits } from '../model/bucket-limits.js';
import { EngramError } from '../model/errors.js';
import type { SearchMode, SearchOptions } from '../model/search-options.js';
import type { Reranker } from './rank/reranker.js';
import type { RerankerRegistry } from './rank/reranker-registry.js';

/** A search's checked settings, with their defaults filled in. */
export interface SearchSettings {
  mode: SearchMode;
  topK: number;
  rerankerName: string;
  reranker: Reranker;
  /** Per-bucket result sizes, the text types' bucket being `topK`. */
  limits: BucketLimits;
}

const MODES: readonly SearchMode[] = ['fast', 'fine', 'deep'];

/**
 * Checks what a caller can get wrong before any work is done.
 *
 * @throws EngramError('INVALID_INPUT') for an unknown mode, ('INVALID_LIMIT') for a topK that is
 * not an integer from 1 to 1000, and the registry's error for an unknown reranker.
 */
export function resolveSearchSettings(options: SearchOptions, rerankers: RerankerRegistry): SearchSettings {
  const mode = options.mode ?? 'fast';
  if (!MODES.includes(mode)) {
    throw new EngramError('INVALID_INPUT', 'mode must be one of: fast, fine, deep', { details: { field: 'mode' } });
  }
  const topK = options.topK ?? 10;
  if (!Number.isInteger(topK) || topK < 1 || topK > 1000) {
    throw new EngramError('INVALID_LIMIT', 'topK must be an integer from 1 to 1000', { details: { field: 'topK' } });
  }
  const rerankerName = options.reranker ?? 'noop';
  const reranker = rerankers.get(rerankerName);
  return { mode, topK, rerankerName, reranker, limits: { ...DEFAULT_BUCKET_LIMITS, ...options.bucketLimits, topK } };
}
