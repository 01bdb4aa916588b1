import type { ChatMessage } from '../model/chat-message.js';
import type { ConsolidationBatch, DecisionTarget } from './consolidator.js';
import { validFromOf, type FormedMemory } from './temporal.js';

/** Bumped whenever the prompt's meaning changes: it is part of the LLM consolidator's version. */
export const CONSOLIDATION_PROMPT_VERSION = 'k1';

const SYSTEM = `You keep a memory store consistent. Each candidate memory is listed with the existing memories closest to it.
Decide for every candidate one action:
- "ADD": new information, not covered by any existing memory.
- "UPDATE": the same fact as one existing memory, refined or completed; give the merged statement in "text".
- "SUPERSEDE": replaces an existing memory that is no longer true (moved, changed job, changed preference or health fact).
- "NOOP": already known; nothing new.
"target" is the id in square brackets of the existing memory (m…) or earlier candidate (c…) acted on; null for ADD.
Answer with one JSON object: {"decisions": [{"candidate": "c1", "action": "ADD" | "UPDATE" | "SUPERSEDE" | "NOOP", "target": string | null, "text": string | null}]}, one decision per candidate.`;

/** The messages of one consolidation call, and what its handles stand for. */
export interface ConsolidationPrompt {
  messages: ChatMessage[];
  /** `c1` … → candidate position. */
  candidates: Map<string, number>;
  /** Per candidate position: the targets it may name (its neighbours' `m…` and earlier `c…` handles). */
  allowed: Map<number, Map<string, DecisionTarget>>;
}

function describe(m: { key: string | null; text: string }, validFrom: string): string {
  const key = m.key ? `key=${m.key} · ` : '';
  return `${key}valid from ${validFrom.slice(0, 10)} · ${JSON.stringify(m.text)}`;
}

/**
 * Builds the one request deciding a whole batch. Memory ids never reach the model: it sees
 * `m1`, `m2` … (one per distinct memory) and `c1` … for candidates, and only the handles listed
 * under a candidate are accepted back for it.
 */
export function buildConsolidationPrompt(batch: ConsolidationBatch): ConsolidationPrompt {
  const memoryHandles = new Map<string, string>();
  const candidates = new Map<string, number>();
  const allowed = new Map<number, Map<string, DecisionTarget>>();
  const lines: string[] = [];
  batch.items.forEach((item, i) => {
    const handle = `c${i + 1}`;
    candidates.set(handle, i);
    const targets = new Map<string, DecisionTarget>();
    for (let j = 0; j < i; j++) targets.set(`c${j + 1}`, { kind: 'candidate', index: j });
    lines.push(`[${handle}] ${describe(item.candidate, item.candidate.validFrom)}`);
    if (item.neighbours.length === 0) lines.push('   (no existing memories)');
    for (const { memory } of item.neighbours) {
      let m = memoryHandles.get(memory.id);
      if (m === undefined) {
        m = `m${memoryHandles.size + 1}`;
        memoryHandles.set(memory.id, m);
      }
      targets.set(m, { kind: 'memory', id: memory.id });
      lines.push(`   [${m}] ${describe(memory, validFromOf(memory as FormedMemory))}`);
    }
    allowed.set(i, targets);
  });
  return {
    candidates,
    allowed,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Candidates:\n${lines.join('\n')}\n\nAnswer with the JSON object.` },
    ],
  };
}
