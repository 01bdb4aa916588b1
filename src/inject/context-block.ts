import type { Hit } from '../model/hit.js';
import type { Memory } from '../model/memory.js';
import { EngramError } from '../model/errors.js';
import { approximateTokens } from './approximate-tokens.js';
import { sanitizeMemoryText } from './sanitize-memory-text.js';

/** The reference recall's leading sentence, kept word for word. */
export const DEFAULT_PREAMBLE =
  "Only use the relevant context if it is relevant to the user's query. Relevant context about the user:";

/**
 * Which timestamp follows a memory as `. Stated at YYYY-MM-DD HH:MM` (UTC).
 * - `'stated-or-created'`: `statedAt` when known (when the fact was said), else `createdAt`
 *   (when it was stored). The reference stamps each fact with the time it was recorded, which
 *   is `createdAt` for memories captured live; `statedAt` is preferred because imported history
 *   (e.g. a conversation from last year) is stored now but was said then.
 * - `'stated'`: only `statedAt`; memories without it get no stamp.
 * - `'none'`: no stamps.
 */
export type TimestampSource = 'stated-or-created' | 'stated' | 'none';

/** Options of {@link formatContextBlock}. */
export interface ContextBlockOptions {
  /**
   * Name of the wrapping tag. Letters, digits, `_`, `-`, `.`; must start with a letter.
   * @default 'engram_context'
   */
  tag?: string | undefined;
  /** First line inside the tag, telling the model to use the memories only if relevant. Trusted text. @default DEFAULT_PREAMBLE */
  preamble?: string | undefined;
  /** @default 'stated-or-created' */
  timestamp?: TimestampSource | undefined;
  /**
   * Say when each fact became true: `(since 2026-02-01)` after a memory's text, and for a memory
   * whose validity ended (recalled with `includeSuperseded`) `(2024-05-10 – 2026-02-01, superseded)`.
   * Conversation turns (`WorkingMemory`) get no such note. @default false
   */
  since?: boolean | undefined;
  /** Add a `## Summaries` section with the summaries of the included memories. @default true */
  summaries?: boolean | undefined;
  /** At most this many memory lines. @default 20 */
  maxMemories?: number | undefined;
  /** At most this many characters for the whole block, tags included. @default 4000 */
  maxChars?: number | undefined;
  /** At most this many tokens for the whole block, by {@link approximateTokens}. @default 1000 */
  maxTokens?: number | undefined;
  /** A single memory or summary longer than this is cut and ends with `…`. @default 1000 */
  maxItemChars?: number | undefined;
}

/** A formatted block and what went into it. */
export interface ContextBlock {
  /** The block, from the opening tag to the closing tag. */
  text: string;
  /** The hits whose memory has a line in the block, in block order. */
  included: Hit[];
  /** Number of hits left out by the count, character or token bound. */
  omittedMemories: number;
  /** Number of summaries left out by the character or token bound. */
  omittedSummaries: number;
  chars: number;
  approxTokens: number;
}

const TAG_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new EngramError('INVALID_INPUT', `${name} must be a non-negative integer, got ${String(value)}`, {
      details: { field: name },
    });
  }
  return value;
}

/** `YYYY-MM-DD HH:MM` in UTC, or null for an unparsable timestamp. */
export function formatStamp(iso: string): string | null {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
}

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars
    .slice(0, Math.max(0, max - 1))
    .join('')
    .trimEnd()}…`;
}

/** `YYYY-MM-DD` (UTC), or null for an unparsable timestamp. */
function formatDay(iso: string | null): string | null {
  return iso === null ? null : (formatStamp(iso)?.slice(0, 10) ?? null);
}

/** ` (since D)`, ` (D1 – D2, superseded)` or ` (D1 – D2)` for a fact; empty for a turn or unknown dates. */
function validityNote(memory: Memory): string {
  if (memory.type === 'WorkingMemory') return '';
  const from = formatDay(memory.validFrom);
  if (from === null) return '';
  const to = formatDay(memory.validTo);
  if (to === null) return ` (since ${from})`;
  return ` (${from} – ${to}${memory.supersededBy ? ', superseded' : ''})`;
}

function memoryLine(memory: Memory, timestamp: TimestampSource, maxItemChars: number, since: boolean): string | null {
  const cutText = cut(sanitizeMemoryText(memory.text), maxItemChars);
  if (cutText === '') return null;
  const note = since ? validityNote(memory) : '';
  const text = note === '' ? cutText : `${cutText.replace(/[.!?。！？]$/u, '')}${note}`;
  const source =
    timestamp === 'none' ? null : (memory.statedAt ?? (timestamp === 'stated-or-created' ? memory.createdAt : null));
  const stamp = source === null ? null : formatStamp(source);
  if (stamp === null) return `- ${text}`;
  // `- {text}. Stated at …`; text already ending in sentence punctuation gets no second mark.
  const sep = /[.!?。！？]$/u.test(text) ? ' ' : '. ';
  return `- ${text}${sep}Stated at ${stamp}`;
}

function omissionLine(memories: number, summaries: number): string | null {
  const parts: string[] = [];
  if (memories > 0) parts.push(`${memories} more ${memories === 1 ? 'memory' : 'memories'}`);
  if (summaries > 0) parts.push(`${summaries} more ${summaries === 1 ? 'summary' : 'summaries'}`);
  return parts.length === 0 ? null : `(${parts.join(' and ')} omitted)`;
}

/**
 * Formats recalled hits as the context block of DESIGN.md §1:
 *
 * ```text
 * <engram_context>
 * Only use the relevant context if it is relevant to the user's query. Relevant context about the user:
 * - User is allergic to peanuts. Stated at 2026-05-01 09:30
 * ## Summaries
 * - Food preferences
 * (2 more memories omitted)
 * </engram_context>
 * ```
 *
 * Memory text is untrusted: it is made inert by {@link sanitizeMemoryText} (no `<`/`>` of any
 * kind survives, one line per memory), so it cannot close the tag, open another one, or forge a
 * header, an item or a role turn. Identical lines are shown once. Memories are kept in the order
 * given (best first) until the
 * count, character or token bound is reached; the cut is stated on the last line.
 *
 * @returns the block, or null when no memory fits (no hits, all empty, or bounds of zero).
 * @throws EngramError('INVALID_INPUT') for an invalid tag name or bound.
 */
export function formatContextBlock(hits: readonly Hit[], options: ContextBlockOptions = {}): ContextBlock | null {
  const bounds = resolveBlockOptions(options);
  const candidates = distinctMemoryLines(hits, bounds);
  if (candidates.length === 0) return null;
  const render = blockRenderer(bounds);
  const fits = (text: string): boolean => text.length <= bounds.maxChars && approximateTokens(text) <= bounds.maxTokens;

  // Memory lines first: take as many as fit together with the omission line they would need.
  const taken = largestFitting(Math.min(bounds.maxMemories, candidates.length), (n) =>
    fits(
      render(
        candidates.slice(0, n).map((c) => c.line),
        [],
        candidates.length - n,
        0,
      ),
    ),
  );
  if (taken === 0) return null;
  const included = candidates.slice(0, taken);
  const lines = included.map((c) => c.line);
  const omittedMemories = candidates.length - taken;

  // Then summaries of the included memories, deduplicated, as far as the bounds allow.
  const summaries = bounds.summaries ? summaryLines(included, bounds.maxItemChars) : [];
  const summaryTaken = largestFitting(summaries.length, (n) =>
    fits(render(lines, summaries.slice(0, n), omittedMemories, summaries.length - n)),
  );
  const omittedSummaries = summaries.length - summaryTaken;
  const text = render(lines, summaries.slice(0, summaryTaken), omittedMemories, omittedSummaries);
  return {
    text,
    included: included.map((c) => c.hit),
    omittedMemories,
    omittedSummaries,
    chars: text.length,
    approxTokens: approximateTokens(text),
  };
}

/** The largest `n` from `max` down to 0 for which `fits(n)`. */
function largestFitting(max: number, fits: (n: number) => boolean): number {
  let n = max;
  while (n > 0 && !fits(n)) n -= 1;
  return n;
}

/** Block options with their defaults, checked. */
type BlockBounds = Required<{ [K in keyof ContextBlockOptions]: NonNullable<ContextBlockOptions[K]> }>;

function resolveBlockOptions(options: ContextBlockOptions): BlockBounds {
  const tag = options.tag ?? 'engram_context';
  if (!TAG_NAME.test(tag)) {
    throw new EngramError('INVALID_INPUT', `invalid context tag name: ${JSON.stringify(tag)}`, {
      details: { field: 'tag' },
    });
  }
  return {
    tag,
    preamble: (options.preamble ?? DEFAULT_PREAMBLE).replace(/\s*[\r\n]+\s*/g, ' '),
    timestamp: options.timestamp ?? 'stated-or-created',
    since: options.since ?? false,
    summaries: options.summaries ?? true,
    maxMemories: positiveInt('maxMemories', options.maxMemories, 20),
    maxChars: positiveInt('maxChars', options.maxChars, 4000),
    maxTokens: positiveInt('maxTokens', options.maxTokens, 1000),
    maxItemChars: Math.max(2, positiveInt('maxItemChars', options.maxItemChars, 1000)),
  };
}

/**
 * One line per distinct memory line: a fact stored twice (e.g. captured twice) is shown once, at
 * the rank of its best hit. Memories whose text is empty once made inert have no line.
 */
function distinctMemoryLines(hits: readonly Hit[], bounds: BlockBounds): Array<{ hit: Hit; line: string }> {
  const candidates: Array<{ hit: Hit; line: string }> = [];
  const seenLines = new Set<string>();
  for (const hit of hits) {
    const line = memoryLine(hit.memory, bounds.timestamp, bounds.maxItemChars, bounds.since);
    if (line === null || seenLines.has(line)) continue;
    seenLines.add(line);
    candidates.push({ hit, line });
  }
  return candidates;
}

/** The summaries of the included memories as lines, made inert, cut and deduplicated. */
function summaryLines(included: ReadonlyArray<{ hit: Hit }>, maxItemChars: number): string[] {
  const summaries: string[] = [];
  const seen = new Set<string>();
  for (const c of included) {
    const s = c.hit.memory.summary;
    if (s === null || s === undefined) continue;
    const clean = cut(sanitizeMemoryText(s), maxItemChars);
    if (clean === '' || seen.has(clean)) continue;
    seen.add(clean);
    summaries.push(`- ${clean}`);
  }
  return summaries;
}

/** Renders the block: tag, preamble, memory lines, summaries, the omission line, closing tag. */
function blockRenderer(
  bounds: BlockBounds,
): (lines: string[], summaryLines: string[], omittedM: number, omittedS: number) => string {
  const open = `<${bounds.tag}>`;
  const close = `</${bounds.tag}>`;
  return (lines, summaries, omittedM, omittedS) => {
    const body = [open, bounds.preamble, ...lines];
    if (summaries.length > 0) body.push('## Summaries', ...summaries);
    const omission = omissionLine(omittedM, omittedS);
    if (omission !== null) body.push(omission);
    body.push(close);
    return body.join('\n');
  };
}
