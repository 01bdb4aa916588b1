import { LiteralIndex } from '../literal-index.js';
import type { ScanNote } from '../scan-note.js';
import { clausePosition } from './clause-position.js';
import { isContextFree } from './context-free-pattern.js';
import { GUARD_RULES, type GuardRule } from './guard-rules.js';
import { normalizeForGuard } from './normalize-for-guard.js';

/** One rule that matched. */
export interface GuardHit {
  rule: string;
  reason: string;
  /** What matched (at most 60 characters of the normalised text). */
  snippet: string;
  score: number;
}

/** The guard's reading of one text. */
export interface GuardVerdict {
  /** Sum of the hits' scores; flagged when it reaches the threshold. */
  score: number;
  flagged: boolean;
  hits: GuardHit[];
  /** One line: the reasons of the hits, each with its snippet. Empty when nothing matched. */
  reason: string;
}

/** The verdict on text in which no rule matched (shared: verdicts are read, never changed). */
const CLEAN: GuardVerdict = Object.freeze({
  score: 0,
  flagged: false,
  hits: Object.freeze([]) as unknown as GuardHit[],
  reason: '',
});

/** Options of {@link checkInstructions}. */
export interface GuardOptions {
  /** Score at which a text is flagged. @default 1 */
  threshold?: number | undefined;
  /** Skip the tool-call syntax rule (for tool memories). @default false */
  allowToolSyntax?: boolean | undefined;
}

const IMPERATIVE_BONUS = 0.3;
const NARRATED_PENALTY = 0.5;
/** A weak hit in a text that talks about the model counts a little more. */
const AI_CONTEXT = /\b(?:ai|assistant|chatbot|language\s+model|llm|gpt|chatgpt|claude|system\s+prompt|the\s+model)\b/i;
const AI_CONTEXT_BONUS = 0.2;
/** Runs of base64 long enough to hide a sentence. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const MAX_DECODED = 4;

/** One scan finds the rules worth running: those with an anchor (at a word start) in the text. */
const ANCHORS = new LiteralIndex(
  GUARD_RULES.length,
  GUARD_RULES.flatMap((rule, i) => rule.anchors.map((anchor) => [anchor, i, true] as const)),
);

const GLOBAL = new Map<GuardRule, RegExp>(
  GUARD_RULES.map((rule) => [rule, new RegExp(rule.pattern.source, `${rule.pattern.flags}g`)]),
);
/** Rules whose matches in a part of a text are matches in the whole (see {@link ScanNote}). */
const CONTEXT_FREE = GUARD_RULES.map((rule) => isContextFree(rule.pattern));
/** A rule counts once per text, by its strongest match. */
const MAX_MATCHES = 8;

function scoreMatch(rule: GuardRule, text: string, match: RegExpExecArray): number {
  let score = typeof rule.weight === 'number' ? rule.weight : rule.weight(match);
  if (rule.imperative === true) {
    const position = clausePosition(text, match.index, match.index + match[0].length);
    if (position === 'imperative') score += IMPERATIVE_BONUS;
    if (position === 'narrated') score -= NARRATED_PENALTY;
  }
  return score;
}

/** The rule's strongest match in `text` as a hit, or null; `note` learns whether it matched at all. */
function scoreRule(rule: GuardRule, text: string, note: ScanNote | undefined): GuardHit | null {
  const pattern = GLOBAL.get(rule) as RegExp;
  pattern.lastIndex = 0;
  let best: { score: number; match: RegExpExecArray } | null = null;
  let seen = 0;
  for (let match = pattern.exec(text); match !== null && seen < MAX_MATCHES; match = pattern.exec(text), seen++) {
    if (match[0].length === 0) pattern.lastIndex++;
    const score = scoreMatch(rule, text, match);
    if (best === null || score > best.score) best = { score, match };
  }
  if (best !== null && note !== undefined) note.nothingWithin = false;
  if (best === null || best.score <= 0) return null;
  const snippet = best.match[0].replace(/\s+/g, ' ').trim().slice(0, 60);
  return { rule: rule.id, reason: rule.reason, snippet, score: best.score };
}

/**
 * The hits of the rules anchored in `text` (at depth 0 with base64 read too). `note` stays true
 * only if no rule matched, no rule that reads context beyond a part (`^`, a negative
 * lookaround) had an anchor, and no run long enough to hide base64 was there.
 */
function scoreText(text: string, options: GuardOptions, depth: number, note?: ScanNote): GuardHit[] {
  const hits: GuardHit[] = [];
  // Rules run only where one of their anchors occurs.
  const candidates = ANCHORS.find(text);
  const count = candidates === null ? 0 : GUARD_RULES.length;
  for (let i = 0; i < count; i++) {
    if (candidates?.[i] !== 1) continue;
    const rule = GUARD_RULES[i] as GuardRule;
    if (rule.toolSyntax === true && options.allowToolSyntax === true) continue;
    if (note !== undefined && CONTEXT_FREE[i] !== true) note.nothingWithin = false;
    const hit = scoreRule(rule, text, note);
    if (hit !== null) hits.push(hit);
  }
  if (depth === 0) hits.push(...decodedHits(text, options, note));
  return hits;
}

/** Base64 that decodes to readable text is read again; a hidden instruction scores as a visible one. */
function decodedHits(text: string, options: GuardOptions, note: ScanNote | undefined): GuardHit[] {
  const out: GuardHit[] = [];
  let decoded = 0;
  if (!hasLongUnbrokenRun(text)) return out;
  if (note !== undefined) note.nothingWithin = false;
  BASE64_RUN.lastIndex = 0;
  for (let match = BASE64_RUN.exec(text); match !== null; match = BASE64_RUN.exec(text)) {
    if (++decoded > MAX_DECODED) break;
    const plain = Buffer.from(
      match[0],
      match[0].includes('-') || match[0].includes('_') ? 'base64url' : 'base64',
    ).toString('utf8');
    if (!readable(plain)) continue;
    const inner = scoreText(normalizeForGuard(plain), options, 1);
    const score = inner.reduce((sum, hit) => sum + hit.score, 0);
    if (score <= 0) continue;
    const reasons = inner.map((hit) => hit.reason).join(', ');
    out.push({
      rule: 'encoded-instruction',
      reason: `hides an instruction in base64 (${reasons})`,
      snippet: match[0].slice(0, 24),
      score,
    });
  }
  return out;
}

/**
 * A stretch of 24 characters without a space somewhere: a base64 blob has one, ordinary text
 * rarely. Hopping from space to space is the cheapest test measured (three times cheaper than
 * a character loop, seven times cheaper than a regular expression).
 */
function hasLongUnbrokenRun(text: string): boolean {
  let previous = -1;
  for (;;) {
    const next = text.indexOf(' ', previous + 1);
    const end = next === -1 ? text.length : next;
    if (end - previous - 1 >= 24) return true;
    if (next === -1) return false;
    previous = next;
  }
}

/** Mostly printable text with spaces between words (binary base64, hashes and keys decode to noise). */
function readable(text: string): boolean {
  if (text.length < 12 || !text.includes(' ')) return false;
  let printable = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || (c > 0xa0 && c !== 0xfffd)) printable++;
  }
  return printable / text.length > 0.95;
}

/**
 * Reads `text` for attempts to instruct the model that will later see it: overriding its
 * instructions, giving it a new identity, chat-template tokens and role tags, tool-call syntax,
 * planted behaviours, prompt leaks, exfiltration, and any of these hidden in base64. A scored
 * rule set, no model: each hit scores by its strength and position (a command at the start of a
 * clause more, a narrated one less), and the text is flagged when the sum reaches the threshold.
 *
 * `note`, when given, is set to whether the verdict is clean for every part of the text as well
 * (for the same `allowToolSyntax`): see {@link ScanNote}.
 */
export function checkInstructions(text: string, options: GuardOptions = {}, note?: ScanNote): GuardVerdict {
  const threshold = options.threshold ?? 1;
  if (note !== undefined) note.nothingWithin = true;
  const normalised = normalizeForGuard(text, note);
  const hits = scoreText(normalised, options, 0, note);
  if (hits.length === 0) return CLEAN;
  let score = hits.reduce((sum, hit) => sum + hit.score, 0);
  if (score < threshold && AI_CONTEXT.test(normalised)) score += AI_CONTEXT_BONUS;
  score = Math.round(score * 100) / 100;
  const reason = hits.map((hit) => `${hit.reason} ("${hit.snippet}")`).join('; ');
  return { score, flagged: score >= threshold, hits, reason };
}
