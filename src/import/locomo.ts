import { readFile } from 'node:fs/promises';

import { EngramError } from '../model/errors.js';
import type { JsonObject } from '../model/json.js';
import type { MemoryInput, MemorySource } from '../model/memory.js';
import {
  at,
  atIndex,
  describe,
  expectArray,
  expectObject,
  expectString,
  expectStringArray,
  invalid,
  isObj,
  type Obj,
} from './validate.js';

/**
 * LoCoMo-format conversations (Maharana et al., 2024, "Evaluating Very Long-Term Conversational
 * Memory of LLM Agents"; data CC BY-NC 4.0). A file is a list of samples
 * `{sample_id, conversation, qa, observation, session_summary, event_summary}`. The importer reads
 * the conversation and the observations; the questions (`qa`) are evaluation data and are read by
 * the LoCoMo benches (`bench/lib/locomo-questions.ts`), not here.
 */

/** One dialogue turn. */
export interface LocomoTurn {
  /** `D<session>:<turn>`, e.g. `D1:3`. */
  diaId: string;
  /** Session number (the N of `session_N`). */
  session: number;
  speaker: string;
  /** The turn's own words, unchanged. */
  text: string;
  /** BLIP caption of the shared image, or null when the turn shares none. */
  imageCaption: string | null;
  /** Image URLs as given (may be empty even when a caption exists). */
  imageUrls: string[];
  /** Session date as ISO-8601 UTC, or null when the file gives none for the session. */
  statedAt: string | null;
}

/** One session's header. */
export interface LocomoSession {
  session: number;
  /** The date as written, e.g. `1:56 pm on 8 May, 2023`, or null. */
  dateTime: string | null;
  /** {@link dateTime} as ISO-8601 UTC, or null. */
  statedAt: string | null;
  turnCount: number;
}

/** One parsed sample. */
export interface LocomoConversation {
  sampleId: string;
  speakerA: string;
  speakerB: string;
  sessions: LocomoSession[];
  /** All turns in session then turn order. */
  turns: LocomoTurn[];
  /** One memory per turn, same order as {@link turns} (see {@link turnToMemory}). */
  memories: MemoryInput[];
  /** Observation facts as `LongTermMemory` / level `fact`, each sourced from its linked turn(s). */
  observations: MemoryInput[];
}

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};

const DATE_TIME = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i;

/**
 * Parses a LoCoMo session date such as `1:56 pm on 8 May, 2023` as a UTC instant.
 * Returns null when the text does not have that shape or names an impossible date.
 *
 * @example parseLocomoDateTime('12:09 am on 13 September, 2023') // '2023-09-13T00:09:00.000Z'
 */
export function parseLocomoDateTime(text: string): string | null {
  const m = DATE_TIME.exec(text);
  if (m === null) return null;
  const [, hh, mm, ampm, dd, monthName, yyyy] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const month = MONTHS[monthName.toLowerCase()];
  let hour = Number(hh);
  const minute = Number(mm);
  const day = Number(dd);
  const year = Number(yyyy);
  if (month === undefined || hour < 1 || hour > 12 || minute > 59) return null;
  if (ampm.toLowerCase() === 'pm' && hour !== 12) hour += 12;
  if (ampm.toLowerCase() === 'am' && hour === 12) hour = 0;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute));
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) return null;
  return date.toISOString();
}

/** The memory text of a turn: `"{speaker}: {text}"`, plus ` (shares a photo: {caption})` for image turns. */
export function turnMemoryText(turn: Pick<LocomoTurn, 'speaker' | 'text' | 'imageCaption'>): string {
  const base = `${turn.speaker}: ${turn.text}`;
  return turn.imageCaption === null ? base : `${base} (shares a photo: ${turn.imageCaption})`;
}

/**
 * The memory for one turn: text from {@link turnMemoryText}, `key` = dia_id, a `chat` source
 * carrying the speaker and the original words, `statedAt` = the session date, `background` = the
 * memory text of the turn before it in the same session (what a reply answers; omitted for a
 * session's first turn), and metadata `{sampleId, diaId, session, speaker}` (+ `imageCaption`,
 * `imageUrls` when present).
 */
export function turnToMemory(sampleId: string, turn: LocomoTurn, previous?: LocomoTurn): MemoryInput {
  const metadata: JsonObject = { sampleId, diaId: turn.diaId, session: turn.session, speaker: turn.speaker };
  if (turn.imageCaption !== null) metadata['imageCaption'] = turn.imageCaption;
  if (turn.imageUrls.length > 0) metadata['imageUrls'] = [...turn.imageUrls];
  const memory: MemoryInput = {
    text: turnMemoryText(turn),
    key: turn.diaId,
    sources: [{ type: 'chat', id: turn.diaId, role: turn.speaker, content: turn.text }],
    metadata,
    statedAt: turn.statedAt,
  };
  if (previous !== undefined && previous.session === turn.session) memory.background = turnMemoryText(previous);
  return memory;
}

/** Options of {@link parseLocomo}. */
export interface ParseLocomoOptions {
  /** Only keep these sample ids (others are skipped, not validated). @default all */
  samples?: readonly string[] | undefined;
}

/**
 * Validates and converts parsed LoCoMo JSON (a list of samples, or one sample object).
 * Throws `EngramError('INVALID_INPUT')` whose message starts with the path of the bad field,
 * e.g. `[2].conversation.session_4[7].speaker: expected a string, got null`.
 */
export function parseLocomo(data: unknown, options: ParseLocomoOptions = {}): LocomoConversation[] {
  const samples = Array.isArray(data)
    ? data
    : isObj(data)
      ? [data]
      : invalid('$', `expected a list of LoCoMo samples, got ${describe(data)}`);
  const wanted = options.samples === undefined ? null : new Set(options.samples);
  const out: LocomoConversation[] = [];
  const seen = new Set<string>();
  samples.forEach((raw, i) => {
    const path = Array.isArray(data) ? atIndex('', i) : '$';
    const sample = expectObject(raw, path);
    const sampleId = expectString(sample['sample_id'], at(path, 'sample_id'), true);
    if (wanted !== null && !wanted.has(sampleId)) return;
    if (seen.has(sampleId)) invalid(at(path, 'sample_id'), `duplicate sample_id ${JSON.stringify(sampleId)}`);
    seen.add(sampleId);
    out.push(parseSample(sample, sampleId, path));
  });
  if (wanted !== null) {
    const missing = [...wanted].filter((id) => !seen.has(id));
    if (missing.length > 0) {
      throw new EngramError('INVALID_INPUT', `samples not found in the file: ${missing.join(', ')}`, {
        details: { missing },
      });
    }
  }
  return out;
}

/**
 * Reads and parses a LoCoMo-format JSON file (see {@link parseLocomo}).
 * Unreadable files and invalid JSON are `EngramError('INVALID_INPUT')` naming the file.
 */
export async function readLocomoFile(file: string, options: ParseLocomoOptions = {}): Promise<LocomoConversation[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new EngramError('INVALID_INPUT', `cannot read LoCoMo file ${file}: ${(cause as Error).message}`, {
      cause,
      details: { file },
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new EngramError('INVALID_INPUT', `${file} is not valid JSON: ${(cause as Error).message}`, {
      cause,
      details: { file },
    });
  }
  try {
    return parseLocomo(data, options);
  } catch (error) {
    if (error instanceof EngramError) {
      throw new EngramError(error.code, `${file}: ${error.message}`, {
        cause: error,
        details: { ...error.details, file },
      });
    }
    throw error;
  }
}

const SESSION_KEY = /^session_(\d+)$/;
const SESSION_DATE_KEY = /^session_(\d+)_date_time$/;

function parseSample(sample: Obj, sampleId: string, path: string): LocomoConversation {
  const convPath = at(path, 'conversation');
  const conv = expectObject(sample['conversation'], convPath);
  const speakerA = expectString(conv['speaker_a'], at(convPath, 'speaker_a'), true);
  const speakerB = expectString(conv['speaker_b'], at(convPath, 'speaker_b'), true);

  const sessionNumbers: number[] = [];
  for (const key of Object.keys(conv)) {
    const m = SESSION_KEY.exec(key);
    if (m !== null) sessionNumbers.push(Number(m[1]));
    else if (!SESSION_DATE_KEY.test(key) && key !== 'speaker_a' && key !== 'speaker_b') {
      invalid(at(convPath, key), 'unknown field (expected speaker_a, speaker_b, session_N, session_N_date_time)');
    }
  }
  sessionNumbers.sort((a, b) => a - b);
  if (sessionNumbers.length === 0) invalid(convPath, 'has no session_N turn lists');

  const sessions: LocomoSession[] = [];
  const turns: LocomoTurn[] = [];
  const turnIds = new Set<string>();
  for (const n of sessionNumbers) {
    const dateKey = `session_${n}_date_time`;
    const rawDate = conv[dateKey];
    let dateTime: string | null = null;
    let statedAt: string | null = null;
    if (rawDate !== undefined && rawDate !== null) {
      dateTime = expectString(rawDate, at(convPath, dateKey));
      statedAt = parseLocomoDateTime(dateTime);
      if (statedAt === null) {
        invalid(
          at(convPath, dateKey),
          `cannot parse ${JSON.stringify(dateTime)} (expected e.g. "1:56 pm on 8 May, 2023")`,
        );
      }
    }
    const listPath = at(convPath, `session_${n}`);
    const list = expectArray(conv[`session_${n}`], listPath);
    list.forEach((rawTurn, t) => {
      const turn = parseTurn(rawTurn, atIndex(listPath, t), n, statedAt);
      if (turnIds.has(turn.diaId))
        invalid(at(atIndex(listPath, t), 'dia_id'), `duplicate dia_id ${JSON.stringify(turn.diaId)}`);
      turnIds.add(turn.diaId);
      turns.push(turn);
    });
    sessions.push({ session: n, dateTime, statedAt, turnCount: list.length });
  }

  const byId = new Map(turns.map((turn) => [turn.diaId, turn]));
  return {
    sampleId,
    speakerA,
    speakerB,
    sessions,
    turns,
    memories: turns.map((turn, i) => turnToMemory(sampleId, turn, turns[i - 1])),
    observations: parseObservations(sample['observation'], at(path, 'observation'), sampleId, byId, sessions),
  };
}

function parseTurn(raw: unknown, path: string, session: number, statedAt: string | null): LocomoTurn {
  const turn = expectObject(raw, path);
  const speaker = expectString(turn['speaker'], at(path, 'speaker'), true);
  const diaId = expectString(turn['dia_id'], at(path, 'dia_id'), true).trim();
  const text = expectString(turn['text'], at(path, 'text'));
  const caption = turn['blip_caption'];
  let imageCaption: string | null = null;
  if (caption !== undefined && caption !== null) {
    imageCaption = expectString(caption, at(path, 'blip_caption')).trim();
    if (imageCaption === '') imageCaption = null;
  }
  const urls = turn['img_url'];
  let imageUrls: string[] = [];
  if (typeof urls === 'string') imageUrls = [urls];
  else if (urls !== undefined && urls !== null) imageUrls = expectStringArray(urls, at(path, 'img_url'));
  if (text.trim() === '' && imageCaption === null) invalid(at(path, 'text'), 'is empty and the turn shares no photo');
  return { diaId, session, speaker, text, imageCaption, imageUrls, statedAt };
}

function parseObservations(
  raw: unknown,
  path: string,
  sampleId: string,
  turns: ReadonlyMap<string, LocomoTurn>,
  sessions: readonly LocomoSession[],
): MemoryInput[] {
  if (raw === undefined || raw === null) return [];
  const obs = expectObject(raw, path);
  const out: MemoryInput[] = [];
  const sessionDates = new Map(sessions.map((s) => [s.session, s.statedAt]));
  const keys = Object.keys(obs).sort((a, b) => sessionNumberOf(a) - sessionNumberOf(b));
  for (const key of keys) {
    const sessionPath = at(path, key);
    const m = /^session_(\d+)_observation$/.exec(key);
    if (m === null) invalid(sessionPath, 'unknown field (expected session_N_observation)');
    const session = Number(m[1]);
    const bySpeaker = expectObject(obs[key], sessionPath);
    for (const [speaker, rawFacts] of Object.entries(bySpeaker)) {
      const factsPath = at(sessionPath, speaker);
      expectArray(rawFacts, factsPath).forEach((rawFact, i) => {
        const factPath = atIndex(factsPath, i);
        const pair = expectArray(rawFact, factPath);
        if (pair.length < 2) invalid(factPath, `expected [fact, dia_id], got ${pair.length} element(s)`);
        const fact = expectString(pair[0], atIndex(factPath, 0), true);
        const link = pair[1];
        const diaIds = (typeof link === 'string' ? [link] : expectStringArray(link, atIndex(factPath, 1))).flatMap(
          splitEvidence,
        );
        if (diaIds.length === 0) invalid(atIndex(factPath, 1), 'names no dia_id');
        const sources: MemorySource[] = diaIds.map((id) => {
          const turn = turns.get(id);
          return turn === undefined
            ? { type: 'chat', id }
            : { type: 'chat', id, role: turn.speaker, content: turn.text };
        });
        const firstTurn = turns.get(diaIds[0] as string);
        out.push({
          text: fact,
          type: 'LongTermMemory',
          level: 'fact',
          sources,
          metadata: { sampleId, kind: 'observation', session, speaker, diaIds },
          statedAt: firstTurn?.statedAt ?? sessionDates.get(session) ?? null,
        });
      });
    }
  }
  return out;
}

function sessionNumberOf(key: string): number {
  const m = /^session_(\d+)/.exec(key);
  return m === null ? Number.MAX_SAFE_INTEGER : Number(m[1]);
}

/** Splits `"D8:6; D9:17"` into `['D8:6', 'D9:17']` (evidence and observation links). */
export function splitEvidence(entry: string): string[] {
  return entry
    .split(/[;,]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
