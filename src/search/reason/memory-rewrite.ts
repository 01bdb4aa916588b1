import { chatJson } from '../../llm/chat-json.js';
import type { ChatModel } from '../../llm/chat-model.js';
import type { Memory } from '../../model/memory.js';
import { reasonerLines } from './reasoner-lines.js';

/** The rewrite prompt (the multi-path searcher's `memory_recreate_enhancement`). */
export const REWRITE_PROMPT = `Rewrite each memory as one self-contained statement focused on the question, keeping
facts, names and dates exactly. Return JSON {"memories": [{"id": "...", "text": "..."}]} with the same ids.`;

/** Rewrites memories into query-focused statements; returns id → text (only known ids). */
export async function rewriteMemories(
  llm: ChatModel,
  query: string,
  memories: readonly Memory[],
  options: { signal?: AbortSignal | undefined } = {},
): Promise<Map<string, string>> {
  const json = await chatJson(llm, {
    messages: [
      { role: 'system', content: REWRITE_PROMPT },
      { role: 'user', content: `Question: ${query}\n\nMemories:\n${reasonerLines(memories)}` },
    ],
    signal: options.signal,
  });
  const known = new Set(memories.map((m) => m.id));
  const out = new Map<string, string>();
  if (Array.isArray(json.memories)) {
    for (const item of json.memories) {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
      const { id, text } = item;
      if (typeof id === 'string' && typeof text === 'string' && known.has(id) && text.trim()) out.set(id, text.trim());
    }
  }
  return out;
}
