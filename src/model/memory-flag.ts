import type { JsonObject } from './json.js';
import type { Memory } from './memory.js';

/**
 * Where Engram keeps a memory's safety report in its metadata: what the write guard masked
 * (categories, counts, fields, kinds — never a value) and the fields it flagged as trying to
 * instruct the model. Written by the write guard only: a caller's own value is replaced.
 */
export const SAFETY_METADATA_KEY = 'engramSafety';

/**
 * Why a memory was flagged on write as trying to instruct the model ("ignore previous
 * instructions", fake role tags, tool-call syntax, hidden base64 …). A flagged memory is kept and
 * visible, but recall and search withhold it from their hits (so from injection) unless the
 * caller passes `includeFlagged`.
 */
export interface MemoryFlag {
  /** One line per flagged field, for people: what the text tries to do, with the phrases that show it. */
  reason: string;
  /** Ids of the guard rules that matched. */
  rules: string[];
  /** The flagged fields (`text`, `summary`, `sources[0].content`, …). */
  fields: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The memory's flag from its safety report, or null when it has none. */
export function memoryFlag(memory: Pick<Memory, 'metadata'>): MemoryFlag | null {
  const report = (memory.metadata as JsonObject | undefined)?.[SAFETY_METADATA_KEY];
  if (!isObject(report) || !Array.isArray(report.flags) || report.flags.length === 0) return null;
  const reasons: string[] = [];
  const rules = new Set<string>();
  const fields: string[] = [];
  for (const flag of report.flags) {
    if (!isObject(flag) || typeof flag.field !== 'string') continue;
    fields.push(flag.field);
    if (typeof flag.reason === 'string' && flag.reason !== '') reasons.push(`${flag.field}: ${flag.reason}`);
    if (Array.isArray(flag.rules)) for (const rule of flag.rules) if (typeof rule === 'string') rules.add(rule);
  }
  return fields.length === 0 ? null : { reason: reasons.join('; '), rules: [...rules], fields };
}
