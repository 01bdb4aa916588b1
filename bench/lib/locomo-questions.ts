import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import {
  readLocomoFile,
  splitEvidence,
  type LocomoConversation,
  type ParseLocomoOptions,
} from '../../src/import/locomo.js';
import { EngramError } from '../../src/model/errors.js';
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
} from '../../src/import/validate.js';

/**
 * The evaluation half of a LoCoMo file: its questions (`qa`), categories and gold turns. The
 * importer (`src/import/locomo.ts`) reads the conversations and ignores `qa`; only the benches
 * and their tests need what is here.
 */

/** LoCoMo question categories. */
export type LocomoCategory = 1 | 2 | 3 | 4 | 5;

/** Names of the LoCoMo categories, for reports. */
export const LOCOMO_CATEGORY_NAMES: Readonly<Record<LocomoCategory, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

/** One QA item. */
export interface LocomoQuestion {
  /** Position in the sample's `qa` list. */
  index: number;
  question: string;
  /** The answer as a string (numbers are stringified), or null when absent (category 5). */
  answer: string | null;
  /** Category 5's `adversarial_answer`, when present. */
  adversarialAnswer: string | null;
  category: LocomoCategory;
  /**
   * Evidence ids, cleaned: entries such as `"D8:6; D9:17"` are split on `;` / `,` and trimmed;
   * empty entries dropped. Ids are NOT checked against the turns (see {@link goldTurnIds}).
   */
  evidence: string[];
  /** Evidence exactly as in the file. */
  rawEvidence: string[];
}

/** A parsed conversation with its questions. */
export interface LocomoBenchConversation extends LocomoConversation {
  questions: LocomoQuestion[];
}

/**
 * Gold turn ids of a question: its cleaned evidence ids that name a real turn, deduplicated,
 * in evidence order. An empty list means the question cannot be scored on turn retrieval.
 */
export function goldTurnIds(question: LocomoQuestion, turnIds: ReadonlySet<string>): string[] {
  return [...new Set(question.evidence.filter((id) => turnIds.has(id)))];
}

function answerText(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return expectString(value, path);
}

/** Validates one sample's `qa` list; errors name the bad field (`[0].qa[3].category: …`). */
export function parseLocomoQuestions(raw: unknown, path: string): LocomoQuestion[] {
  if (raw === undefined || raw === null) return [];
  return expectArray(raw, path).map((rawItem, index) => {
    const itemPath = atIndex(path, index);
    const item = expectObject(rawItem, itemPath);
    const question = expectString(item['question'], at(itemPath, 'question'), true);
    const category = item['category'];
    if (category !== 1 && category !== 2 && category !== 3 && category !== 4 && category !== 5) {
      invalid(at(itemPath, 'category'), `expected 1, 2, 3, 4 or 5, got ${describe(category)}`);
    }
    const rawEvidence =
      item['evidence'] === undefined ? [] : expectStringArray(item['evidence'], at(itemPath, 'evidence'));
    return {
      index,
      question,
      answer: answerText(item['answer'], at(itemPath, 'answer')),
      adversarialAnswer: answerText(item['adversarial_answer'], at(itemPath, 'adversarial_answer')),
      category,
      evidence: rawEvidence.flatMap(splitEvidence),
      rawEvidence,
    };
  });
}

/**
 * The questions of every sample of parsed LoCoMo JSON (a list of samples or one sample), by
 * `sample_id`. Throws `EngramError('INVALID_INPUT')` naming the bad field.
 */
export function questionsBySample(data: unknown): Map<string, LocomoQuestion[]> {
  const samples = Array.isArray(data) ? data : [data];
  const out = new Map<string, LocomoQuestion[]>();
  samples.forEach((raw, i) => {
    const path = Array.isArray(data) ? atIndex('', i) : '$';
    if (!isObj(raw)) return;
    const id = raw['sample_id'];
    if (typeof id === 'string') out.set(id, parseLocomoQuestions(raw['qa'], at(path, 'qa')));
  });
  return out;
}

/** Reads a LoCoMo file: the importer's conversations, each with its questions. */
export async function readLocomoBench(
  file: string,
  options: ParseLocomoOptions = {},
): Promise<LocomoBenchConversation[]> {
  const conversations = await readLocomoFile(file, options);
  // readLocomoFile has read and parsed the same file: it exists and is JSON.
  let questions: Map<string, LocomoQuestion[]>;
  try {
    questions = questionsBySample(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    if (!(error instanceof EngramError)) throw error;
    throw new EngramError(error.code, `${file}: ${error.message}`, {
      cause: error,
      details: { ...error.details, file },
    });
  }
  return conversations.map((c) => ({ ...c, questions: questions.get(c.sampleId) ?? [] }));
}

/**
 * The dev split: `ENGRAM_LOCOMO_DATA` when set, else `shared/data/locomo-dev.json` beside the
 * repository, or beside the folder that holds it (a git worktree under `wt/`).
 */
export function defaultLocomoData(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env['ENGRAM_LOCOMO_DATA'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const candidates = ['../../../shared/data/locomo-dev.json', '../../../../shared/data/locomo-dev.json'].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  return candidates.find((path) => existsSync(path)) ?? (candidates[0] as string);
}
