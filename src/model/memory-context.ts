/** What a memory's ranking reads besides its text: what it answers, when it was said, and who said it. */
export interface MemoryContext {
  background: string | null;
  statedAt: string | null;
  /** Who said it (`speakerNames` of the memory: roles of its chat sources, `metadata.speaker`). */
  speakers: readonly string[];
}
