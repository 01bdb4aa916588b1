import type { MemoryType } from '../../model/memory-type.js';
import type { Scored } from './scored-hit.js';

/** Result sizes per bucket. The text types (working, long-term, user, outer, raw file) share `topK`. */
export interface BucketLimits {
  /** @default 10 */
  topK: number;
  /** ToolSchemaMemory. @default 6 */
  toolSchemaTopK: number;
  /** ToolTrajectoryMemory. @default 6 */
  toolTrajectoryTopK: number;
  /** SkillMemory. @default 3 */
  skillTopK: number;
  /** PreferenceMemory. @default 6 */
  preferenceTopK: number;
}

export const DEFAULT_BUCKET_LIMITS: BucketLimits = {
  topK: 10,
  toolSchemaTopK: 6,
  toolTrajectoryTopK: 6,
  skillTopK: 3,
  preferenceTopK: 6,
};

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
 * Sorts hits by score (stable) and keeps, per bucket, that bucket's top-k (seed 003
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
