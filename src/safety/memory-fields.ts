import type { JsonObject, JsonValue } from '../model/json.js';
import type { MemorySource } from '../model/memory.js';
import type { MemoryType } from '../model/memory-type.js';
import { SAFETY_METADATA_KEY } from '../model/memory-flag.js';

/** The string-carrying fields of a memory input, a patch or a stored memory. */
export interface SafetyFields {
  text?: string | undefined;
  type?: MemoryType | undefined;
  key?: string | null | undefined;
  tags?: readonly string[] | undefined;
  summary?: string | null | undefined;
  background?: string | null | undefined;
  sources?: readonly MemorySource[] | undefined;
  metadata?: JsonObject | undefined;
}

/**
 * Where Engram keeps a memory's safety report in its metadata. Scrubbing skips it (the report
 * quotes the phrases that got a memory flagged); the write path scans it like any other key, so
 * a caller cannot hide a value there, and replaces a caller-supplied one by its own report.
 */
export { SAFETY_METADATA_KEY };

/** Called with each string and its path (`text`, `tags[2]`, `sources[0].content`, `metadata.a.b`); returns the new value. */
export type StringVisitor = (value: string, field: string) => string;

const SOURCE_FIELDS = ['content', 'title', 'url', 'id'] as const;
/** Integers this long may be a card or phone number stored as a JSON number. */
const LONG_INTEGER = 1_000_000;

/** Options of {@link mapMemoryStrings}. */
export interface MapStringsOptions {
  /** Leave `metadata[SAFETY_METADATA_KEY]` alone. @default false */
  skipSafetyMetadata?: boolean | undefined;
}

function mapSource(source: MemorySource, at: string, visit: StringVisitor): MemorySource {
  let out: MemorySource | null = null;
  for (const name of SOURCE_FIELDS) {
    const value = source[name];
    if (typeof value !== 'string') continue;
    const next = visit(value, `${at}.${name}`);
    if (next !== value) (out ??= { ...source })[name] = next;
  }
  return out ?? source;
}

function mapJson(value: JsonValue, at: string, visit: StringVisitor): JsonValue {
  if (typeof value === 'string') return visit(value, at);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || Math.abs(value) < LONG_INTEGER) return value;
    const text = String(value);
    const next = visit(text, at);
    return next === text ? value : next;
  }
  if (value === null || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | null = null;
    value.forEach((item, i) => {
      const next = mapJson(item, `${at}[${i}]`, visit);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  return mapObject(value, at, visit, false);
}

function mapObject(value: JsonObject, at: string, visit: StringVisitor, skipReport: boolean): JsonObject {
  let out: JsonObject | null = null;
  for (const [key, item] of Object.entries(value)) {
    if (skipReport && key === SAFETY_METADATA_KEY) continue;
    const next = mapJson(item, `${at}.${key}`, visit);
    if (next !== item) (out ??= { ...value })[key] = next;
  }
  return out ?? value;
}

function mapOptional(value: string | null | undefined, field: string, visit: StringVisitor): string | null | undefined {
  return typeof value === 'string' ? visit(value, field) : value;
}

/**
 * Applies `visit` to every string a memory carries: text, summary, background, key, tags, the
 * sources' content / title / url / id, and metadata values at any depth (long integers too, as
 * a card number may be stored as a number). Returns `target` itself when nothing changed, else
 * a shallow copy with the changed fields replaced; `target` is never mutated. Metadata keys are
 * not visited.
 */
export function mapMemoryStrings<T extends SafetyFields>(
  target: T,
  visit: StringVisitor,
  options: MapStringsOptions = {},
): T {
  const changes: Partial<SafetyFields> = {};
  const note = <K extends keyof SafetyFields>(name: K, before: SafetyFields[K], after: SafetyFields[K]): void => {
    if (after !== before) changes[name] = after;
  };
  note('text', target.text, mapOptional(target.text, 'text', visit) ?? undefined);
  note('summary', target.summary, mapOptional(target.summary, 'summary', visit));
  note('background', target.background, mapOptional(target.background, 'background', visit));
  note('key', target.key, mapOptional(target.key, 'key', visit));
  if (target.tags !== undefined) {
    const tags = target.tags.map((tag, i) => visit(tag, `tags[${i}]`));
    if (tags.some((tag, i) => tag !== target.tags?.[i])) changes.tags = tags;
  }
  if (target.sources !== undefined) {
    const sources = target.sources.map((source, i) => mapSource(source, `sources[${i}]`, visit));
    if (sources.some((source, i) => source !== target.sources?.[i])) changes.sources = sources;
  }
  if (target.metadata !== undefined)
    note(
      'metadata',
      target.metadata,
      mapObject(target.metadata, 'metadata', visit, options.skipSafetyMetadata === true),
    );
  return Object.keys(changes).length === 0 ? target : { ...target, ...changes };
}
