import type { BucketLimits } from '../../model/bucket-limits.js';
import type { MemoryType } from '../../model/memory-type.js';
import type { PathName } from '../../model/path-name.js';
import { denseChannel } from '../channels/dense-channel.js';
import { graphChannel } from '../channels/graph-channel.js';
import { bm25Channel } from '../channels/bm25-channel.js';
import { fulltextChannel } from '../channels/fulltext-channel.js';
import type { SearchChannel } from '../channels/search-channel.js';
import { workingChannel } from '../channels/working-channel.js';

/** One path: which memory types it reads, with which channels, and which bucket limits it. */
export interface PathSpec {
  name: PathName;
  types: MemoryType[];
  channels: SearchChannel[];
  bucket: keyof BucketLimits;
}

const SCOPE_CHANNELS = [denseChannel, graphChannel, bm25Channel, fulltextChannel];

/**
 * The local paths. Long-term and user memory run as two parallel paths (the multi-path searcher's
 * path B); stored outer and raw-file memories ride with long-term. Every scope path runs the
 * multi-path searcher's scope channels in one candidate pool: dense, graph, BM25, and — as there,
 * only with `fastGraph` or `fulltext` — the full-text channel (see {@link FULLTEXT_IN_SCOPE}). The
 * separate `keyword` path (full-text alone over the text types, ranked in its own pool) is opt-in:
 * on LoCoMo it lowered multi-hop and open-domain recall (its own-pool BM25 normalisation inflates
 * its hits when merged by max score), see bench/RESULTS-search.md. Internet is handled separately
 * (it reads no store).
 */
export const LOCAL_PATHS: readonly PathSpec[] = [
  { name: 'working', types: ['WorkingMemory'], channels: [workingChannel], bucket: 'topK' },
  {
    name: 'long-term',
    types: ['LongTermMemory', 'OuterMemory', 'RawFileMemory'],
    channels: SCOPE_CHANNELS,
    bucket: 'topK',
  },
  { name: 'user', types: ['UserMemory'], channels: SCOPE_CHANNELS, bucket: 'topK' },
  {
    name: 'keyword',
    types: ['LongTermMemory', 'UserMemory', 'RawFileMemory'],
    channels: [fulltextChannel],
    bucket: 'topK',
  },
  {
    name: 'tool',
    types: ['ToolSchemaMemory', 'ToolTrajectoryMemory'],
    channels: SCOPE_CHANNELS,
    bucket: 'toolSchemaTopK',
  },
  { name: 'skill', types: ['SkillMemory'], channels: SCOPE_CHANNELS, bucket: 'skillTopK' },
  { name: 'preference', types: ['PreferenceMemory'], channels: SCOPE_CHANNELS, bucket: 'preferenceTopK' },
];

/**
 * Why full-text is off by default inside scope paths: with it, fast search ranked slightly below
 * the core recall on LoCoMo (R@10 0.625 vs 0.628) because its extra candidates shift the pool
 * BM25 normalisation; without it a fast search's long-term path is the core recall exactly.
 */
export const FULLTEXT_IN_SCOPE = 'opt-in';

/** Paths run when a search names none: all local paths but `keyword`. */
export const DEFAULT_PATHS: readonly PathName[] = ['working', 'long-term', 'user', 'tool', 'skill', 'preference'];

/**
 * The local paths that read at least one of `types` (each narrowed to those types), restricted to
 * the named `paths` when given.
 */
export function selectPaths(
  types: readonly MemoryType[] | undefined,
  paths?: readonly PathName[] | undefined,
): PathSpec[] {
  const named = paths
    ? LOCAL_PATHS.filter((p) => paths.includes(p.name))
    : LOCAL_PATHS.filter((p) => DEFAULT_PATHS.includes(p.name));
  if (!types) return named;
  const wanted = new Set(types);
  return named.map((p) => ({ ...p, types: p.types.filter((t) => wanted.has(t)) })).filter((p) => p.types.length > 0);
}
