import type { MemoryType } from '../model/memory-type.js';
import { denseChannel } from './channels/dense-channel.js';
import { graphChannel } from './channels/graph-channel.js';
import { bm25Channel } from './channels/bm25-channel.js';
import { fulltextChannel } from './channels/fulltext-channel.js';
import type { SearchChannel } from './channels/search-channel.js';
import { workingChannel } from './channels/working-channel.js';
import type { BucketLimits } from './post/type-buckets.js';

/** Names of the search paths (seed 003 `_retrieve_paths`). */
export type PathName = 'working' | 'long-term' | 'user' | 'tool' | 'skill' | 'preference' | 'keyword' | 'internet';

/** One path: which memory types it reads, with which channels, and which bucket limits it. */
export interface PathSpec {
  name: PathName;
  types: MemoryType[];
  channels: SearchChannel[];
  bucket: keyof BucketLimits;
}

const SCOPE_CHANNELS = [denseChannel, graphChannel, bm25Channel];

/**
 * The local paths. Long-term and user memory run as two parallel paths (seed path B); stored
 * outer and raw-file memories ride with long-term. The keyword path runs the full-text channel
 * over the text types. Internet is handled separately (it reads no store).
 */
export const LOCAL_PATHS: readonly PathSpec[] = [
  { name: 'working', types: ['WorkingMemory'], channels: [workingChannel], bucket: 'topK' },
  { name: 'long-term', types: ['LongTermMemory', 'OuterMemory', 'RawFileMemory'], channels: SCOPE_CHANNELS, bucket: 'topK' },
  { name: 'user', types: ['UserMemory'], channels: SCOPE_CHANNELS, bucket: 'topK' },
  { name: 'keyword', types: ['LongTermMemory', 'UserMemory', 'RawFileMemory'], channels: [fulltextChannel], bucket: 'topK' },
  { name: 'tool', types: ['ToolSchemaMemory', 'ToolTrajectoryMemory'], channels: SCOPE_CHANNELS, bucket: 'toolSchemaTopK' },
  { name: 'skill', types: ['SkillMemory'], channels: SCOPE_CHANNELS, bucket: 'skillTopK' },
  { name: 'preference', types: ['PreferenceMemory'], channels: SCOPE_CHANNELS, bucket: 'preferenceTopK' },
];

/** The local paths that read at least one of `types`, each narrowed to those types. */
export function selectPaths(types: readonly MemoryType[] | undefined): PathSpec[] {
  if (!types) return [...LOCAL_PATHS];
  const wanted = new Set(types);
  return LOCAL_PATHS.map((p) => ({ ...p, types: p.types.filter((t) => wanted.has(t)) })).filter((p) => p.types.length > 0);
}
