import { chatJson } from '../../llm/chat-json.js';
import type { ChatModel } from '../../llm/chat-model.js';
import type { ChatMessage } from '../../model/chat-message.js';
import { EngramError } from '../../model/errors.js';
import type { JsonValue } from '../../model/json.js';
import { planFast, type FastPlanOptions } from './fast-plan.js';
import type { ParsedGoal, PlanInfo } from '../../model/parsed-goal.js';

/** The planning prompt (the multi-path searcher's `TASK_PARSE_PROMPT`, restated). */
export const TASK_PARSE_PROMPT = `You turn a user's message into a retrieval plan for a personal memory store.
Return one JSON object with exactly these fields:
- "keys": short exact subject phrases a stored memory could be keyed by (0-5 strings)
- "tags": topical tags (0-5 lowercase strings)
- "rephrased_query": the message rewritten as a standalone search query (resolve pronouns from context)
- "memories": 2 to 5 short statements of what a relevant stored memory would say
- "internet_search": true only when the answer needs fresh public information, else false
- "goal_type": one of "retrieval", "question", "task", "chitchat"
Answer with the JSON object only.`;

/** Options of {@link planFine}. */
export interface FinePlanOptions extends FastPlanOptions {
  /** Earlier turns, oldest first, given to the planner for pronoun resolution. */
  conversation?: ChatMessage[] | undefined;
  signal?: AbortSignal | undefined;
}

function strings(value: JsonValue | undefined, max: number): string[] {
  if (!Array.isArray(value)) return [];
  const out = value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean);
  return [...new Set(out)].slice(0, max);
}

/** Validates the planner's JSON; throws LLM_ERROR when it is unusable. */
export function parseGoalJson(json: { [key: string]: JsonValue }, query: string, context: string): ParsedGoal {
  const rephrased = typeof json.rephrased_query === 'string' && json.rephrased_query.trim() ? json.rephrased_query.trim() : query;
  const memories = strings(json.memories, 5);
  if (memories.length === 0) {
    throw new EngramError('LLM_ERROR', 'planner answer has no "memories" expansions', { details: { fields: Object.keys(json) } });
  }
  return {
    keys: strings(json.keys, 5),
    tags: strings(json.tags, 5).map((t) => t.toLowerCase()),
    rephrasedQuery: rephrased,
    memories,
    internetSearch: json.internet_search === true,
    goalType: typeof json.goal_type === 'string' ? json.goal_type : 'retrieval',
    context,
  };
}

/**
 * Fine mode: one LLM call turns the query (and context, conversation) into a {@link ParsedGoal}.
 * Any failure — transport, timeout, unparsable or incomplete JSON — falls back to fast mode and
 * says why in `info.fallback`.
 */
export async function planFine(
  llm: ChatModel,
  query: string,
  options: FinePlanOptions = {},
): Promise<{ goal: ParsedGoal; info: PlanInfo }> {
  const context = options.context ?? '';
  const history = (options.conversation ?? []).map((m) => `${m.role}: ${m.content}`).join('\n');
  const user = [context ? `Context:\n${context}` : '', history ? `Conversation:\n${history}` : '', `Message:\n${query}`]
    .filter(Boolean)
    .join('\n\n');
  try {
    const json = await chatJson(llm, {
      messages: [
        { role: 'system', content: TASK_PARSE_PROMPT },
        { role: 'user', content: user },
      ],
      signal: options.signal,
    });
    return { goal: parseGoalJson(json, query, context), info: { mode: 'fine' } };
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    return { goal: planFast(query, options), info: { mode: 'fast', fallback: reason } };
  }
}
