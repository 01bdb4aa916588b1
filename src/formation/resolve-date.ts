import * as chrono from 'chrono-node';

/** How precisely a date expression names its time. */
export type DateGranularity = 'day' | 'month' | 'year';

/** A date expression resolved against the time it was said. */
export interface ResolvedDate {
  /** The expression as it appears in the turn, e.g. `next Friday`. */
  phrase: string;
  /** Start of the named day, month or year, ISO-8601 UTC (midnight in the conversation's offset). */
  start: string;
  /** Exclusive end of it. */
  end: string;
  granularity: DateGranularity;
  /** `2026-03-13`, `2026-03` or `2026`: what is written next to the phrase in a memory's text. */
  label: string;
}

/** Why a date expression was not used. */
export type DateProblem = 'unparseable-date' | 'impossible-date';

export type DateResolution = { ok: true; date: ResolvedDate } | { ok: false; reason: DateProblem; detail: string };

/** Options of {@link resolveDatePhrase}. */
export interface ResolveDateOptions {
  /** Offset of the conversation's local time from UTC, in minutes (UTC-5 is -300). @default 0 */
  timezoneOffsetMinutes?: number | undefined;
}

// Words that may surround a date without changing it ("on 8 May", "since last year").
const FILLER = new Set(['on', 'in', 'at', 'the', 'since', 'from', 'during', 'around', 'about', 'of', 'back', 'by']);
const BARE_YEAR = /^(?:(?:in|during|since|from|around|by|back in)\s+)?((?:1[6-9]|2[0-9])\d{2})$/i;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function span(
  year: number,
  month: number,
  day: number,
  granularity: DateGranularity,
  offsetMinutes: number,
): [string, string] {
  const shift = offsetMinutes * 60_000;
  const start = Date.UTC(year, month - 1, day) - shift;
  const end =
    granularity === 'day'
      ? Date.UTC(year, month - 1, day + 1)
      : granularity === 'month'
        ? Date.UTC(year, month, 1)
        : Date.UTC(year + 1, 0, 1);
  return [new Date(start).toISOString(), new Date(end - shift).toISOString()];
}

function resolved(
  phrase: string,
  year: number,
  monthIn: number,
  dayIn: number,
  granularity: DateGranularity,
  offset: number,
): DateResolution {
  // A month or a year starts on its first day, whatever day chrono implied.
  const month = granularity === 'year' ? 1 : monthIn;
  const day = granularity === 'day' ? dayIn : 1;
  const [start, end] = span(year, month, day, granularity, offset);
  const label =
    granularity === 'year'
      ? String(year)
      : granularity === 'month'
        ? `${year}-${pad(month)}`
        : `${year}-${pad(month)}-${pad(day)}`;
  return { ok: true, date: { phrase, start, end, granularity, label } };
}

function granularityOf(result: chrono.ParsedResult): DateGranularity {
  const start = result.start;
  if (start.isCertain('day') || start.isCertain('weekday')) return 'day';
  if (start.isCertain('month')) return 'month';
  return 'year';
}

/** The words of `phrase` outside chrono's match, which must be filler for the match to stand for the phrase. */
function leftover(phrase: string, matched: string): string[] {
  const at = phrase.toLowerCase().indexOf(matched.toLowerCase());
  const rest = at < 0 ? phrase : `${phrase.slice(0, at)} ${phrase.slice(at + matched.length)}`;
  return rest
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !FILLER.has(w));
}

/**
 * Resolves a date expression ("next Friday", "last year", "yesterday", "8 May, 2023", "in 2019")
 * against the time it was said, in code (chrono-node for English expressions, bare years by
 * hand): a model's own date arithmetic is never used. The whole phrase must be a date: an
 * expression chrono reads only partly, or one naming an impossible date (`2023-02-30`,
 * `the 45th of March`), is refused with a reason instead of being guessed. "next Friday" is the
 * Friday of next week (chrono's reading); weekdays and relative days have day granularity.
 */
export function resolveDatePhrase(phrase: string, reference: string, options: ResolveDateOptions = {}): DateResolution {
  const offset = options.timezoneOffsetMinutes ?? 0;
  const text = phrase.trim();
  const year = BARE_YEAR.exec(text);
  if (year) return resolved(text, Number(year[1]), 1, 1, 'year', offset);
  const results = chrono.parse(text, { instant: new Date(reference), timezone: offset });
  const first = results[0];
  const rest = first ? leftover(text, first.text) : [];
  if (first && results.length === 1 && rest.length === 0) {
    const start = first.start;
    return resolved(
      text,
      start.get('year') ?? 0,
      start.get('month') ?? 1,
      start.get('day') ?? 1,
      granularityOf(first),
      offset,
    );
  }
  if (/\d/.test(rest.join(' ')) || (!first && /\d/.test(text))) {
    return { ok: false, reason: 'impossible-date', detail: `"${text}" names no real date` };
  }
  return { ok: false, reason: 'unparseable-date', detail: `"${text}" is not a date expression Engram can resolve` };
}

/**
 * The first date expression inside a free text (for the rule-based extractor), resolved against
 * `reference`; null when the text names none.
 */
export function findDateInText(text: string, reference: string, options: ResolveDateOptions = {}): ResolvedDate | null {
  const offset = options.timezoneOffsetMinutes ?? 0;
  for (const result of chrono.parse(text, { instant: new Date(reference), timezone: offset })) {
    const resolution = resolveDatePhrase(result.text, reference, options);
    if (resolution.ok) return resolution.date;
  }
  const year = /\b(?:in|since|during) ((?:1[6-9]|2[0-9])\d{2})\b/i.exec(text);
  return year ? (resolveDatePhrase(year[0], reference, options) as { ok: true; date: ResolvedDate }).date : null;
}

/** Where the first date expression in `text` starts (chrono's reading, or a year after in/since/during); -1 when none. */
export function firstDateIndex(text: string): number {
  const found = [
    chrono.parse(text)[0]?.index ?? -1,
    /\b(?:in|since|during) (?:1[6-9]|2[0-9])\d{2}\b/i.exec(text)?.index ?? -1,
  ];
  const starts = found.filter((i) => i >= 0);
  return starts.length > 0 ? Math.min(...starts) : -1;
}
