/** Memory types of the multi-path searcher, as TypeScript string literals. */
export const MEMORY_TYPES = [
  'WorkingMemory',
  'LongTermMemory',
  'UserMemory',
  'OuterMemory',
  'ToolSchemaMemory',
  'ToolTrajectoryMemory',
  'RawFileMemory',
  'SkillMemory',
  'PreferenceMemory',
] as const;

export type MemoryType = (typeof MEMORY_TYPES)[number];

/** Structural level of a memory in the graph-style organisation. */
export const MEMORY_LEVELS = ['topic', 'concept', 'fact'] as const;
export type MemoryLevel = (typeof MEMORY_LEVELS)[number];

export const MEMORY_STATUSES = ['activated', 'archived', 'deleted'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

/** Type of a memory added without one. */
export const DEFAULT_MEMORY_TYPE: MemoryType = 'LongTermMemory';

/** Status of a memory added without one. */
export const DEFAULT_MEMORY_STATUS: MemoryStatus = 'activated';
