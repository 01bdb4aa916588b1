import { EngramError } from '../model/errors.js';
import type { JsonValue } from '../model/json.js';

const FENCE = /```[ \t]*(?:json|JSON|jsonc)?[ \t]*\r?\n?([\s\S]*?)```/g;

/** Index just past the balanced JSON value starting at `start` (an `{` or `[`), or -1. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

function tryParse(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function scan(text: string): JsonValue | undefined {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch !== '{' && ch !== '[') continue;
    const end = balancedEnd(text, i);
    if (end < 0) continue;
    const value = tryParse(text.slice(i, end));
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The first JSON object or array in a model's answer. Survives code fences (```json … ```),
 * leading prose ("Sure! Here it is:") and trailing text; braces inside strings are respected.
 * A fenced block wins over bare JSON elsewhere. Throws `EngramError('LLM_ERROR')` when none parses.
 */
export function extractJson(text: string): JsonValue {
  const whole = tryParse(text.trim());
  if (whole !== undefined && typeof whole === 'object' && whole !== null) return whole;
  for (const match of text.matchAll(FENCE)) {
    const body = (match[1] ?? '').trim();
    const value = tryParse(body) ?? scan(body);
    if (value !== undefined) return value;
  }
  const value = scan(text);
  if (value !== undefined) return value;
  throw new EngramError('LLM_ERROR', 'the model answer contains no JSON object', {
    details: { answer: text.length > 200 ? `${text.slice(0, 200)}…` : text },
  });
}

/** {@link extractJson}, requiring an object (not an array or scalar). */
export function extractJsonObject(text: string): { [key: string]: JsonValue } {
  const value = extractJson(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EngramError('LLM_ERROR', 'the model answer is JSON but not an object', { details: {} });
  }
  return value;
}
