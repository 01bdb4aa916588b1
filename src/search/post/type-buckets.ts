import type { MemoryType } from '../../model/memory-type.js';
import { DEFAULT_BUCKET_LIMITS, type BucketLimits } from '../../model/bucket-limits.js';
import type { Scored } from './scored-hit.js';

/** The bucket a memory type falls in. */
export function bucketOf(type: MemoryType): keyof BucketLimits {
  switch (type) {
    case 'ToolSchemaMemory':
      return 'toolSchemaTopK';
    case 'ToolTrajectoryMemory':
      return 'toolTrajectoryTopK';
    case 'SkillMemory':
      return 'skillTopK';
    case 'PreferenceMemory':
      return 'preferenceTopK';
    default:
      return 'topK';
  }
}

/**
 * Sorts hits by score (stable) and keeps, per bucket, that bucket's top-k (the multi-path searcher's
 * `_sort_and_trim`), so tool, skill and preference memories never compete with facts for slots.
 * The result is sorted by score.
 */
export function trimByType<T extends Scored>(hits: readonly T[], limits: BucketLimits = DEFAULT_BUCKET_LIMITS): T[] {
  const counts = new Map<keyof BucketLimits, number>();
  const out: T[] = [];
  for (const hit of [...hits].sort((a, b) => b.score - a.score)) {
    const bucket = bucketOf(hit.memory.type);
    const n = counts.get(bucket) ?? 0;
    if (n >= limits[bucket]) continue;
    counts.set(bucket, n + 1);
    out.push(hit);
  }
  return out;
}

/** Per-type trimming that keeps the given (MMR) order instead of re-sorting by score. */
export function trimByTypeKeepingOrder<T extends Scored>(hits: readonly T[], limits: BucketLimits): T[] {
  const kept = new Set(
    trimByType(
      hits.map((h, i) => ({ memory: h.memory, score: -i, h })),
      limits,
    ).map((x) => x.h),
  );
  return hits.filter((h) => kept.has(h));
}
