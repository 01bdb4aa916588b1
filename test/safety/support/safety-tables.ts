/**
 * The labelled tables of test/safety/fixtures and their scoring, shared by the quality test and
 * bench/safety-quality.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { detectSensitive, type DetectOptions } from '../../../src/safety/detect/detect-sensitive.js';
import { compileNationalId } from '../../../src/safety/detect/national-ids.js';
import { checkInstructions } from '../../../src/safety/guard/poisoning-guard.js';
import { maskText } from '../../../src/safety/mask-text.js';
import { SENSITIVE_CATEGORIES, type SensitiveCategory } from '../../../src/safety/sensitive-category.js';

export type TablePart = 'tuning' | 'heldout';

export interface SensitiveRow {
  text: string;
  expect: SensitiveCategory[];
  kinds?: string[];
  values?: string[];
  note?: string;
}

export interface GuardRow {
  text: string;
  instruction: boolean;
}

const FIXTURES = new URL('../fixtures/', import.meta.url);

function readJsonl<T>(name: string): T[] {
  const text = readFileSync(new URL(name, FIXTURES), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

export function sensitiveRows(part: TablePart): SensitiveRow[] {
  return readJsonl<SensitiveRow>(`sensitive-${part}.jsonl`);
}

export function guardRows(part: TablePart): GuardRow[] {
  return readJsonl<GuardRow>(`guard-${part}.jsonl`);
}

/** Detection settings of the quality run (see fixtures/README.md). */
export function qualityDetectOptions(): DetectOptions {
  return { phoneRegion: 'US', nationalIds: [compileNationalId('us-ssn', 'q'), compileNationalId('uk-nino', 'q')] };
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export interface Score extends Counts {
  precision: number;
  recall: number;
}

function score(c: Counts): Score {
  return {
    ...c,
    precision: c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp),
    recall: c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn),
  };
}

export interface SensitiveScore {
  rows: number;
  perCategory: Record<SensitiveCategory, Score>;
  overall: Score;
  /** Rows where a planted value survived masking everything detected. */
  leaks: string[];
  /** Rows whose secret was found under another kind than labelled. */
  kindMismatches: string[];
  /** Every row whose detected categories differ from its label. */
  errors: Array<{ text: string; expected: SensitiveCategory[]; found: SensitiveCategory[] }>;
}

const ALL_MASK = Object.fromEntries(SENSITIVE_CATEGORIES.map((c) => [c, 'mask'])) as Record<SensitiveCategory, 'mask'>;

/** Precision and recall per category: a row counts once per category it holds or is found to hold. */
export function scoreSensitive(
  rows: readonly SensitiveRow[],
  options: DetectOptions = qualityDetectOptions(),
): SensitiveScore {
  const counts = Object.fromEntries(SENSITIVE_CATEGORIES.map((c) => [c, { tp: 0, fp: 0, fn: 0 }])) as Record<
    SensitiveCategory,
    Counts
  >;
  const out: SensitiveScore = {
    rows: rows.length,
    perCategory: {} as SensitiveScore['perCategory'],
    overall: score({ tp: 0, fp: 0, fn: 0 }),
    leaks: [],
    kindMismatches: [],
    errors: [],
  };
  for (const row of rows) {
    const findings = detectSensitive(row.text, options);
    const found = new Set(findings.map((f) => f.category));
    const expected = new Set(row.expect);
    for (const c of SENSITIVE_CATEGORIES) {
      if (expected.has(c) && found.has(c)) counts[c].tp++;
      else if (expected.has(c)) counts[c].fn++;
      else if (found.has(c)) counts[c].fp++;
    }
    if ([...expected].sort().join() !== [...found].sort().join())
      out.errors.push({ text: row.text, expected: row.expect, found: [...found] });
    const masked = maskText(row.text, findings, ALL_MASK).text;
    if ((row.values ?? []).some((v) => masked.includes(v))) out.leaks.push(row.text);
    const kinds = new Set(findings.map((f) => f.kind));
    if (
      row.expect.includes('secret') &&
      found.has('secret') &&
      row.kinds !== undefined &&
      !row.kinds.some((k) => kinds.has(k))
    ) {
      out.kindMismatches.push(`${row.kinds.join(',')} → ${[...kinds].join(',')}: ${row.text.slice(0, 60)}`);
    }
  }
  const total = { tp: 0, fp: 0, fn: 0 };
  for (const c of SENSITIVE_CATEGORIES) {
    out.perCategory[c] = score(counts[c]);
    total.tp += counts[c].tp;
    total.fp += counts[c].fp;
    total.fn += counts[c].fn;
  }
  out.overall = score(total);
  return out;
}

export interface GuardScore extends Score {
  rows: number;
  misses: string[];
  falseAlarms: string[];
}

/** Precision and recall of the guard's flag against the `instruction` label. */
export function scoreGuard(rows: readonly GuardRow[]): GuardScore {
  const c = { tp: 0, fp: 0, fn: 0 };
  const misses: string[] = [];
  const falseAlarms: string[] = [];
  for (const row of rows) {
    const flagged = checkInstructions(row.text).flagged;
    if (flagged && row.instruction) c.tp++;
    else if (flagged) {
      c.fp++;
      falseAlarms.push(row.text);
    } else if (row.instruction) {
      c.fn++;
      misses.push(row.text);
    }
  }
  return { ...score(c), rows: rows.length, misses, falseAlarms };
}

/** Every turn, BLIP caption, observation and session summary of a LoCoMo-format file: ordinary text, none of it sensitive or instructing. */
export function locomoTexts(path: string): string[] {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Array<{
    conversation: Record<string, unknown>;
    observation?: Record<string, Record<string, unknown[]>>;
    session_summary?: Record<string, string>;
  }>;
  const out: string[] = [];
  for (const sample of data) {
    for (const [key, turns] of Object.entries(sample.conversation)) {
      if (!key.startsWith('session_') || !Array.isArray(turns)) continue;
      for (const turn of turns as Array<{ text: string; blip_caption?: string }>) {
        out.push(turn.text);
        if (turn.blip_caption !== undefined) out.push(turn.blip_caption);
      }
    }
    for (const bySpeaker of Object.values(sample.observation ?? {})) {
      for (const items of Object.values(bySpeaker))
        for (const item of items) if (Array.isArray(item)) out.push(String(item[0]));
    }
    for (const summary of Object.values(sample.session_summary ?? {})) out.push(summary);
  }
  return out;
}

/** locomo-dev.json beside the repository (CI, the main checkout) or in the workplace's shared folder (worktrees). */
export const LOCOMO_DEV: string | undefined = [
  fileURLToPath(new URL('../../../../shared/data/locomo-dev.json', import.meta.url)),
  '/work/shared/data/locomo-dev.json',
].find((path) => existsSync(path));
