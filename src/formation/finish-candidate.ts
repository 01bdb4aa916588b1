import type { Candidate, Dropped, ExtractorInfo } from './candidate.js';
import type { ExtractionTurn, ExtractionWindow } from './extraction-window.js';
import { FACT_KIND_TYPES, type FactKind } from './fact-kind.js';
import { normalizeTurnText } from './normalize-turn-text.js';
import { resolveDatePhrase, type ResolvedDate } from './resolve-date.js';

/** A candidate as an extractor first states it, its source turns already mapped to episode ids. */
export interface RawCandidate {
  text: string;
  kind: FactKind;
  key: string | null;
  tags: string[];
  confidence: number;
  sourceTurnIds: string[];
  /** The date expression, verbatim from a source turn; null when none. */
  when: string | null;
}

const KEY = /^[a-z0-9][a-z0-9._:-]{0,127}$/;

/** A key in the shared form (`User.Home City` → `user.home_city`), or null when it cannot be one. */
export function normalizeKey(key: string | null): string | null {
  if (key === null) return null;
  const k = key.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, '_');
  return KEY.test(k) ? k : null;
}

/** Writes the resolved date after the phrase in the text (`next Friday (2026-03-13)`), once. */
function annotate(text: string, date: ResolvedDate): string {
  const at = text.toLowerCase().indexOf(date.phrase.toLowerCase());
  if (at < 0 || text.includes(date.label)) return text;
  const end = at + date.phrase.length;
  return `${text.slice(0, end)} (${date.label})${text.slice(end)}`;
}

function resolveWhen(
  phrase: string,
  sources: ExtractionTurn[],
  window: ExtractionWindow,
  index: number,
): { date: ResolvedDate | null; dropped: Dropped | null } {
  const wanted = normalizeTurnText(phrase);
  const turn = sources.find((t) => normalizeTurnText(t.text).includes(wanted));
  if (!turn) {
    const detail = `date "${phrase}" does not appear in the candidate's source turns`;
    return { date: null, dropped: { reason: 'date-not-in-source', detail, index, candidateDropped: false } };
  }
  const resolution = resolveDatePhrase(phrase, turn.occurredAt, {
    timezoneOffsetMinutes: window.timezoneOffsetMinutes,
  });
  if (resolution.ok) return { date: resolution.date, dropped: null };
  return {
    date: null,
    dropped: { reason: resolution.reason, detail: resolution.detail, index, candidateDropped: false },
  };
}

/**
 * Shared last step of every extractor: checks the evidence, resolves the date in code against
 * the turn it was said in, fixes the key's form, and applies the validity rule of
 * {@link Candidate.validFrom}. Returns null (with the reason) for a candidate without source
 * turns or below `minConfidence`; a bad date only loses the date.
 */
export function finishCandidate(
  raw: RawCandidate,
  index: number,
  window: ExtractionWindow,
  extractor: ExtractorInfo,
  minConfidence: number,
): { candidate: Candidate | null; dropped: Dropped[] } {
  const sources = window.turns.filter((t) => raw.sourceTurnIds.includes(t.id));
  if (sources.length === 0) {
    return {
      candidate: null,
      dropped: [{ reason: 'no-source-turns', detail: 'no valid source turn', index, candidateDropped: true }],
    };
  }
  if (raw.confidence < minConfidence) {
    const detail = `confidence ${raw.confidence} is below ${minConfidence}`;
    return { candidate: null, dropped: [{ reason: 'low-confidence', detail, index, candidateDropped: true }] };
  }
  const dropped: Dropped[] = [];
  let when: ResolvedDate | null = null;
  if (raw.when !== null && raw.when.trim() !== '') {
    const result = resolveWhen(raw.when, sources, window, index);
    when = result.date;
    if (result.dropped) dropped.push(result.dropped);
  }
  const statedAt = sources
    .map((t) => t.occurredAt)
    .sort()
    .at(-1) as string;
  const startsBefore = when !== null && Date.parse(when.start) <= Date.parse(statedAt);
  const candidate: Candidate = {
    text: when ? annotate(raw.text.trim(), when) : raw.text.trim(),
    kind: raw.kind,
    type: FACT_KIND_TYPES[raw.kind],
    key: normalizeKey(raw.key),
    tags: [...new Set(raw.tags)],
    confidence: raw.confidence,
    sourceTurnIds: sources.map((t) => t.id),
    statedAt,
    when,
    validFrom: when && startsBefore && raw.kind !== 'event' ? when.start : statedAt,
    extractedBy: extractor,
    speaker: oneSpeaker(sources),
  };
  return { candidate, dropped };
}

/** The speaker every turn shares, or null (none named, or several people). */
function oneSpeaker(turns: ReadonlyArray<{ speaker: string | null }>): string | null {
  const names = new Set(turns.map((t) => t.speaker));
  const [only] = names;
  return names.size === 1 && only !== undefined ? only : null;
}
