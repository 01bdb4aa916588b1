import {
  MEMORY_INPUT_FIELDS,
  MEMORY_SOURCE_TEXT_FIELDS,
  MEMORY_SOURCE_TYPES,
  type MemoryInput,
  type MemorySource,
} from '../model/memory.js';
import { MEMORY_LEVELS, MEMORY_STATUSES, MEMORY_TYPES } from '../model/memory-type.js';
import {
  at,
  atIndex,
  expectArray,
  expectJsonObject,
  expectObject,
  expectOneOf,
  expectString,
  expectStringArray,
  invalid,
  nullableString,
  optionalString,
  rejectUnknownKeys,
} from './validate.js';

const SOURCE_FIELDS = ['type', ...MEMORY_SOURCE_TEXT_FIELDS] as const;

/**
 * Checks that a JSON value has the shape of a {@link MemoryInput} and returns it typed.
 * Only the shape is checked here (types, enums, unknown fields, a parseable `statedAt`);
 * text length and content rules belong to the facade. Failures are
 * `EngramError('INVALID_INPUT')` whose message starts with `path`.
 *
 * @param path Prefix for error messages, e.g. `line 12`.
 */
export function parseMemoryInput(value: unknown, path: string): MemoryInput {
  const obj = expectObject(value, path);
  rejectUnknownKeys(obj, MEMORY_INPUT_FIELDS, path);
  const input: MemoryInput = { text: expectString(obj['text'], at(path, 'text'), true) };
  const id = optionalString(obj['id'], at(path, 'id'));
  if (id !== undefined) {
    if (id.trim() === '') invalid(at(path, 'id'), 'must not be empty');
    input.id = id;
  }
  if (obj['type'] !== undefined) input.type = expectOneOf(obj['type'], MEMORY_TYPES, at(path, 'type'));
  const key = nullableString(obj['key'], at(path, 'key'));
  if (key !== undefined) input.key = key;
  if (obj['tags'] !== undefined) input.tags = expectStringArray(obj['tags'], at(path, 'tags'));
  if (obj['level'] !== undefined) {
    input.level = obj['level'] === null ? null : expectOneOf(obj['level'], MEMORY_LEVELS, at(path, 'level'));
  }
  const summary = nullableString(obj['summary'], at(path, 'summary'));
  if (summary !== undefined) input.summary = summary;
  const background = nullableString(obj['background'], at(path, 'background'));
  if (background !== undefined) input.background = background;
  if (obj['sources'] !== undefined) {
    const sourcesPath = at(path, 'sources');
    input.sources = expectArray(obj['sources'], sourcesPath).map((s, i) => parseSource(s, atIndex(sourcesPath, i)));
  }
  if (obj['metadata'] !== undefined) input.metadata = expectJsonObject(obj['metadata'], at(path, 'metadata'));
  const statedAt = nullableString(obj['statedAt'], at(path, 'statedAt'));
  if (statedAt !== undefined) {
    if (statedAt !== null && Number.isNaN(Date.parse(statedAt))) {
      invalid(at(path, 'statedAt'), `cannot parse ${JSON.stringify(statedAt)} as an ISO-8601 date`);
    }
    input.statedAt = statedAt;
  }
  if (obj['status'] !== undefined) input.status = expectOneOf(obj['status'], MEMORY_STATUSES, at(path, 'status'));
  // A precomputed vector: the facade checks it against the scope's model (the codes of every entry point).
  if (obj['vector'] !== undefined) input.vector = obj['vector'] as number[];
  return input;
}

function parseSource(value: unknown, path: string): MemorySource {
  const obj = expectObject(value, path);
  rejectUnknownKeys(obj, SOURCE_FIELDS, path);
  const source: MemorySource = { type: expectOneOf(obj['type'], MEMORY_SOURCE_TYPES, at(path, 'type')) };
  for (const field of MEMORY_SOURCE_TEXT_FIELDS) {
    const v = obj[field];
    if (v !== undefined && v !== null) source[field] = expectString(v, at(path, field));
  }
  return source;
}
