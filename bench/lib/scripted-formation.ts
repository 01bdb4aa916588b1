import {
  startScriptedLlm,
  type ScriptedLlmServer,
  type ScriptedReply,
  type ScriptRule,
} from '../../test/formation/support/scripted-llm-server.js';

/**
 * The scripted LLM server of a formation bench (real HTTP on 127.0.0.1): `extract` answers the
 * extraction prompts, `consolidate` the consolidation prompts, each after `latencyMs` (default 0).
 */
export function startScriptedFormation(options: {
  extract: ScriptRule['reply'];
  consolidate: ScriptRule['reply'];
  latencyMs?: number | undefined;
}): Promise<ScriptedLlmServer> {
  return startScriptedLlm({
    latencyMs: options.latencyMs,
    rules: [
      { name: 'extract', match: 'durable memories', reply: options.extract },
      { name: 'consolidate', match: 'memory store consistent', reply: options.consolidate },
    ],
  });
}

/** A fact as the scripted extractor states it: from the turn `handle`, confidence 0.9, no tags, no date. */
export function scriptedFact(text: string, handle: string, kind: string, key: string | null) {
  return { text, kind, key, tags: [], confidence: 0.9, turns: [handle], when: null };
}

/** A candidate (`[c1]`) or a memory listed under it (`   [m1]`) in a consolidation prompt. */
export interface PromptEntry {
  handle: string;
  /** Null when the line shows no `key=`. */
  key: string | null;
  /** The text as the prompt quotes it (JSON). */
  quoted: string;
}

const CANDIDATE = /^\[(c\d+)\] (?:key=(\S+) · )?.*· (".*")$/;
const LISTED = /^ {3}\[(m\d+)\] (?:key=(\S+) · )?.*· (".*")$/;

const entryOf = (m: RegExpExecArray): PromptEntry => ({
  handle: m[1] as string,
  key: m[2] ?? null,
  quoted: m[3] as string,
});

/**
 * The scripted consolidator: each candidate of the prompt is decided `action` against the first
 * memory listed under it that `same` accepts, ADD when none does.
 */
export function consolidateByMatch(
  prompt: string,
  action: 'NOOP' | 'SUPERSEDE',
  same: (candidate: PromptEntry, memory: PromptEntry) => boolean,
): ScriptedReply {
  const decisions: Array<{ candidate: string; action: string; target: string | null; text: null }> = [];
  let current: { entry: PromptEntry; target: string | null } | null = null;
  const flush = () => {
    if (current)
      decisions.push({
        candidate: current.entry.handle,
        action: current.target ? action : 'ADD',
        target: current.target,
        text: null,
      });
  };
  for (const line of prompt.split('\n')) {
    const c = CANDIDATE.exec(line);
    const m = LISTED.exec(line);
    if (c) {
      flush();
      current = { entry: entryOf(c), target: null };
    } else if (m && current && !current.target && same(current.entry, entryOf(m))) current.target = m[1] as string;
  }
  flush();
  return { content: { decisions } };
}
