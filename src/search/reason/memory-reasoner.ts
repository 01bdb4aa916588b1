import { chatJson } from '../../llm/chat-json.js';
import type { ChatModel } from '../../llm/chat-model.js';
import type { Memory } from '../../model/memory.js';

/** The reasoner prompt (seed 003 `MemoryReasoner`). */
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

/** The `[id] key: memory` lines the reasoner reads. */
export function reasonerLines(memories: readonly Memory[]): string {
  return memories.map((m) => `[${m.id}] ${m.key ?? m.type}: ${m.text.replace(/\s+/g, ' ')}`).join('\n');
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

/** Asks whether the memories answer the query and what else to look for (one deep-search stage). */
export const STAGE_PROMPT = `You check whether retrieved memories are enough to answer a question.
Each memory is a line "[id] key: memory". Return JSON:
{"can_answer": boolean, "reason": string, "retrieval_phrases": [string, ...]}
"retrieval_phrases" (at most 3, short, searchable) say what is still missing when can_answer is false.`;

/** One stage verdict. */
export interface StageVerdict {
  canAnswer: boolean;
  phrases: string[];
  reason: string;
}

/** Runs one stage judgement; throws when the answer is unusable. */
export async function judgeStage(
  llm: ChatModel,
  query: string,
  memories: readonly Memory[],
  options: { signal?: AbortSignal | undefined; maxPhrases?: number } = {},
): Promise<StageVerdict> {
  const json = await chatJson(llm, {
    messages: [
      { role: 'system', content: STAGE_PROMPT },
      { role: 'user', content: `Question: ${query}\n\nMemories:\n${reasonerLines(memories) || '(none)'}` },
    ],
    signal: options.signal,
  });
  const canAnswer = json.can_answer === true;
  const phrases = Array.isArray(json.retrieval_phrases)
    ? json.retrieval_phrases.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim())
    : [];
  return { canAnswer, phrases: [...new Set(phrases)].slice(0, options.maxPhrases ?? 3), reason: typeof json.reason === 'string' ? json.reason : '' };
}

/** The rewrite prompt (seed 003 `memory_recreate_enhancement`). */
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
