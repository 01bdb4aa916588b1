import type { ChatModel } from '../../llm/chat-model.js';
import type { Memory } from '../../model/memory.js';
import { reasonerLines } from './reasoner-lines.js';

/** The reasoner prompt (the multi-path searcher's `MemoryReasoner`). */
export const REASON_PROMPT = `You select the memories needed to answer a question.
Each memory is a line "[id] key: memory". Return JSON {"selected_ids": ["id", ...]} listing only the ids of
memories that help answer the question, most useful first. Return an empty list if none help.`;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Parses `selected_ids` from a JSON answer, falling back to UUIDs found anywhere in the text. */
export function parseSelectedIds(answer: string, known: ReadonlySet<string>): string[] {
  let ids: string[] = [];
  try {
    const start = answer.indexOf('{');
    const json = start >= 0 ? (JSON.parse(answer.slice(start, answer.lastIndexOf('}') + 1)) as { selected_ids?: unknown }) : {};
    if (Array.isArray(json.selected_ids)) ids = json.selected_ids.filter((x): x is string => typeof x === 'string');
  } catch {
    ids = [];
  }
  if (ids.length === 0) ids = answer.match(UUID) ?? [];
  const lower = new Map([...known].map((id) => [id.toLowerCase(), id]));
  const out: string[] = [];
  for (const id of ids) {
    const real = known.has(id) ? id : lower.get(id.toLowerCase());
    if (real && !out.includes(real)) out.push(real);
  }
  return out;
}

/**
 * The reasoner: the LLM picks the memories it would use. Returns the selected ids in the model's
 * order (only ids that were offered). JSON `selected_ids` first, UUIDs in the text as fallback.
 * Throws on transport errors; the searcher then keeps every hit.
 */
export async function selectMemories(
  llm: ChatModel,
  query: string,
  memories: readonly Memory[],
  options: { signal?: AbortSignal | undefined } = {},
): Promise<string[]> {
  if (memories.length === 0) return [];
  const known = new Set(memories.map((m) => m.id));
  const response = await llm.chat({
    messages: [
      { role: 'system', content: REASON_PROMPT },
      { role: 'user', content: `Question: ${query}\n\nMemories:\n${reasonerLines(memories)}` },
    ],
    json: true,
    signal: options.signal,
  });
  return parseSelectedIds(response.text, known);
}

