import { EngramError } from '../model/errors.js';
import { MEMORY_TYPES, type MemoryType } from '../model/memory-type.js';

/** Short names accepted by {@link parseSearchTypes}, besides the exact type names. */
export const SEARCH_TYPE_ALIASES: Readonly<Record<string, MemoryType[]>> = {
  working: ['WorkingMemory'],
  'long-term': ['LongTermMemory'],
  longterm: ['LongTermMemory'],
  user: ['UserMemory'],
  outer: ['OuterMemory'],
  tool: ['ToolSchemaMemory', 'ToolTrajectoryMemory'],
  'tool-schema': ['ToolSchemaMemory'],
  'tool-trajectory': ['ToolTrajectoryMemory'],
  'raw-file': ['RawFileMemory'],
  skill: ['SkillMemory'],
  preference: ['PreferenceMemory'],
  text: ['WorkingMemory', 'LongTermMemory', 'UserMemory', 'OuterMemory', 'RawFileMemory'],
};

/**
 * Parses a `--types` value: a comma list of type names (`LongTermMemory`) or aliases
 * (`long-term`, `user`, `tool`, `skill`, `preference`, `working`, `text`…), case-insensitive.
 * Throws `INVALID_INPUT` listing what is accepted.
 */
export function parseSearchTypes(text: string): MemoryType[] {
  const out = new Set<MemoryType>();
  const byLower = new Map(MEMORY_TYPES.map((t) => [t.toLowerCase(), t]));
  for (const raw of text.split(',')) {
    const name = raw.trim().toLowerCase();
    if (!name) continue;
    const types = SEARCH_TYPE_ALIASES[name] ?? (byLower.has(name) ? [byLower.get(name) as MemoryType] : undefined);
    if (!types) {
      throw new EngramError('INVALID_INPUT', `unknown memory type "${raw.trim()}"; use ${[...Object.keys(SEARCH_TYPE_ALIASES), ...MEMORY_TYPES].join(', ')}`, {
        details: { field: 'types', value: raw.trim() },
      });
    }
    for (const t of types) out.add(t);
  }
  if (out.size === 0) throw new EngramError('INVALID_INPUT', 'types must name at least one memory type', { details: { field: 'types' } });
  return [...out];
}
