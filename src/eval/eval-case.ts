import { readFile } from 'node:fs/promises';

import { EngramError } from '../model/errors.js';
import type { Scope } from '../model/scope.js';

/** One evaluation case: a query and the memories a good ranking returns for it. */
export interface EvalCase {
  /** A label for reports (e.g. a question id). @default the line number */
  id?: string | undefined;
  query: string;
  /** Memory ids or keys that answer the query; a memory matches an entry by its id or its key. */
  expected: string[];
  /** Narrows the run's scope for this case (e.g. `{ user: 'u1' }`). @default the run's scope */
  scope?: Partial<Scope> | undefined;
  /** Group for the per-category table. @default none */
  category?: string | undefined;
}

const CASE_FIELDS = new Set(['id', 'query', 'expected', 'scope', 'category']);
const SCOPE_KEYS = new Set(['tenant', 'user', 'agent', 'session', 'collection']);

function bad(where: string, message: string): never {
  throw new EngramError('INVALID_INPUT', `${where}: ${message}`, { details: { where } });
}

function optionalString(value: unknown, where: string, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') bad(where, `${field} must be a non-empty string`);
  return value;
}

function parseScope(value: unknown, where: string): Partial<Scope> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(where, 'scope must be an object');
  const scope: Partial<Scope> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!SCOPE_KEYS.has(key)) bad(where, `unknown scope field ${JSON.stringify(key)}`);
    scope[key as keyof Scope] = optionalString(v, where, `scope.${key}`) as string;
  }
  return scope;
}

/** Validates one parsed case; `where` prefixes every error message (e.g. `cases.jsonl:3`). */
export function parseEvalCase(value: unknown, where: string): EvalCase {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(where, 'expected a JSON object');
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!CASE_FIELDS.has(key))
      bad(where, `unknown field ${JSON.stringify(key)} (known: ${[...CASE_FIELDS].join(', ')})`);
  }
  const query = optionalString(obj['query'], where, 'query');
  if (query === undefined) bad(where, 'query is required');
  const expected = obj['expected'];
  if (!Array.isArray(expected) || expected.length === 0)
    bad(where, 'expected must be a non-empty list of memory ids or keys');
  expected.forEach((e, i) => optionalString(e, where, `expected[${i}]`) ?? bad(where, `expected[${i}] is missing`));
  return {
    id: optionalString(obj['id'], where, 'id'),
    query,
    expected: [...new Set(expected as string[])],
    scope: parseScope(obj['scope'], where),
    category: optionalString(obj['category'], where, 'category'),
  };
}

/**
 * Parses JSON Lines of cases (blank lines skipped). Any bad line is `EngramError('INVALID_INPUT')`
 * naming `source:line`; no case is returned unless every line is valid.
 */
export function parseEvalCases(text: string, source = 'cases'): EvalCase[] {
  const cases: EvalCase[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      throw new EngramError('INVALID_INPUT', `${where}: not valid JSON (${(cause as Error).message})`, {
        cause,
        details: { where },
      });
    }
    const parsed = parseEvalCase(value, where);
    cases.push({ ...parsed, id: parsed.id ?? `line ${i + 1}` });
  });
  if (cases.length === 0) throw new EngramError('INVALID_INPUT', `${source}: no cases`, { details: { where: source } });
  return cases;
}

/** Reads and parses a cases file (see {@link parseEvalCases}). */
export async function readEvalCases(file: string): Promise<EvalCase[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new EngramError('INVALID_INPUT', `cannot read cases file ${file}: ${(cause as Error).message}`, {
      cause,
      details: { file },
    });
  }
  return parseEvalCases(text, file);
}
