import type { ChatMessage } from '../model/chat-message.js';
import type { ExtractionWindow } from './extraction-window.js';
import { FACT_KINDS } from './fact-kind.js';

/** Bumped whenever the prompt's meaning changes: it is part of the LLM extractor's version. */
export const EXTRACTION_PROMPT_VERSION = 'x1';

const SYSTEM = `You turn a conversation into durable memories for a long-term memory store.
Answer with one JSON object: {"memories": [ ... ]}, each memory
{"text": string, "kind": ${FACT_KINDS.map((k) => `"${k}"`).join(' | ')}, "key": string | null, "tags": string[], "confidence": number, "turns": string[], "when": string | null}.
Rules:
- One self-contained statement per memory, in the third person, naming who it is about (the speaker's name, else "The user").
- Keep what is worth remembering beyond this conversation: facts about people, preferences, events, plans, outcomes of tool calls, skills. Skip greetings, questions, small talk and the assistant's own suggestions. Answer {"memories": []} when there is nothing.
- "turns": the ids in square brackets of the turns the memory comes from. Use only ids shown.
- "when": the date expression from those turns that says when it happened or became true, copied exactly as written ("last year", "next Friday", "8 May 2023"); null when there is none. Never compute or rewrite a date.
- "key": the slot of a single-valued attribute, lowercase and dotted, e.g. "user.residence", "user.employer", "user.job_title", "user.allergy.peanuts", "user.preference.coffee"; null when the memory is not the value of a slot. Two memories with the same key contradict each other.
- "confidence": from 0 to 1, how sure you are the memory is stated (not guessed).`;

/** The messages of one extraction call, and the short handles standing for the window's turn ids. */
export interface ExtractionPrompt {
  messages: ChatMessage[];
  /** Handle (`t1`, `t2`, …) → episode id. Only these are accepted back. */
  handles: Map<string, string>;
}

/**
 * Builds the single request covering a window. Turns are shown under short local handles, never
 * their ids, so an id the model invents cannot match anything real; each turn carries its date
 * and its text as a JSON string.
 */
export function buildExtractionPrompt(window: ExtractionWindow): ExtractionPrompt {
  const handles = new Map<string, string>();
  const lines = window.turns.map((turn, i) => {
    const handle = `t${i + 1}`;
    handles.set(handle, turn.id);
    const who = turn.speaker ? `${turn.role} (${turn.speaker})` : turn.role;
    // Quoted, so a turn cannot fake the next line ("\n[t9] … user: …").
    return `[${handle}] ${turn.occurredAt.slice(0, 16)}Z ${who}: ${JSON.stringify(turn.text)}`;
  });
  const header = window.session ? `Session ${window.session}.` : 'Conversation.';
  return {
    handles,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `${header} Turns:\n${lines.join('\n')}\n\nAnswer with the JSON object.` },
    ],
  };
}
