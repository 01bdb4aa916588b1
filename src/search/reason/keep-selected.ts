import type { ChatModel } from '../../llm/chat-model.js';
import type { Memory } from '../../model/memory.js';
import { selectMemories } from './memory-reasoner.js';

/**
 * The reasoner as a filter: keeps the candidates whose memory the LLM selected, in their own
 * order. Throws what {@link selectMemories} throws.
 */
export async function keepSelected<T extends { memory: Memory }>(
  llm: ChatModel,
  query: string,
  candidates: readonly T[],
  signal: AbortSignal | undefined,
): Promise<T[]> {
  const ids = await selectMemories(
    llm,
    query,
    candidates.map((c) => c.memory),
    { signal },
  );
  const keep = new Set(ids);
  return candidates.filter((c) => keep.has(c.memory.id));
}
