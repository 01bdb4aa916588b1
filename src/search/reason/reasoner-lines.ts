import type { Memory } from '../../model/memory.js';

/** The `[id] key: memory` lines the reasoner reads. */
export function reasonerLines(memories: readonly Memory[]): string {
  return memories.map((m) => `[${m.id}] ${m.key ?? m.type}: ${m.text.replace(/\s+/g, ' ')}`).join('\n');
}
