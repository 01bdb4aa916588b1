import type { Memory } from './memory.js';

/**
 * The names of who said a memory: the `role` of its chat sources and a non-blank string
 * `metadata.speaker`, each once, in that order. What the spread fusion matches a query's names
 * against; stores compute it too, so a candidate's context needs no whole-row read.
 */
export function speakerNames(memory: Pick<Memory, 'sources' | 'metadata'>): string[] {
  const names = memory.sources.flatMap((s) => (s.type === 'chat' && s.role ? [s.role] : []));
  const speaker = memory.metadata['speaker'];
  if (typeof speaker === 'string' && speaker.trim() !== '') names.push(speaker);
  return [...new Set(names)];
}
