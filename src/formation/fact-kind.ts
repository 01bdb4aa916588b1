import type { MemoryType } from '../model/memory-type.js';

/**
 * What an extracted memory is about, as extractors name it. Each kind maps onto one of Engram's
 * `MEMORY_TYPES` ({@link FACT_KIND_TYPES}); the kind itself is kept in the memory's metadata and tags.
 */
export const FACT_KINDS = ['user_fact', 'preference', 'event', 'tool_outcome', 'skill', 'world_fact'] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/** The memory type each kind is stored as. */
export const FACT_KIND_TYPES: Readonly<Record<FactKind, MemoryType>> = Object.freeze({
  user_fact: 'UserMemory',
  preference: 'PreferenceMemory',
  event: 'LongTermMemory',
  tool_outcome: 'ToolTrajectoryMemory',
  skill: 'SkillMemory',
  world_fact: 'LongTermMemory',
});
