/** One scope a warm-up put in memory. */
export interface WarmedPartition {
  tenant: string;
  /** The user whose memories these are; null for the partition of queries without a user. */
  user: string | null;
  model: string;
  dim: number;
  /** Memories cached (their vectors and lexical index). */
  memories: number;
}

/** What a warm-up loaded ahead of the first request. */
export interface WarmReport {
  /** Most recently used first. */
  partitions: WarmedPartition[];
  /** Partitions remembered but not loaded: beyond the cache's byte budget, or no longer in the database. */
  skipped: number;
  /** Everything the cache holds afterwards: memories and the bytes it counts for them. */
  cachedMemories: number;
  cachedBytes: number;
  /** Wall time of the warm-up. */
  ms: number;
}
