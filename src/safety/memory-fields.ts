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

/**
 * Called with each string, its path (`text`, `tags[2]`, `sources[0].content`, `metadata.a.b`) and
 * whether the field is one a model may be shown (see {@link isModelFacing}); returns the new value.
 */
export type StringVisitor = (value: string, field: string, modelFacing: boolean) => string;

const SOURCE_FIELDS = ['content', 'title', 'url', 'id'] as const;
/** A source's fields a model may be shown: its words, not its id or URL. */
const MODEL_FACING_SOURCE = [true, true, false, false] as const;
/** Integers this long may be a card or phone number stored as a JSON number. */
const LONG_INTEGER = 1_000_000;

/**
 * The fields a model may be shown (context block, summaries, reasoner lines, rerank documents):
 * the poisoning guard reads these. Metadata and source ids / URLs are searched for sensitive
 * data like every field, but never put into a prompt, so an instruction there instructs nobody.
 */
export function isModelFacing(field: string): boolean {
  if (field === 'text' || field === 'summary' || field === 'background' || field === 'key' || field.startsWith('tags['))
    return true;
  return field.startsWith('sources[') && (field.endsWith('.content') || field.endsWith('.title'));
}

/** Options of {@link mapMemoryStrings}. */
export interface MapStringsOptions {
  /** Leave `metadata[SAFETY_METADATA_KEY]` alone. @default false */
  skipSafetyMetadata?: boolean | undefined;
}

function mapSource(source: MemorySource, at: string, visit: StringVisitor): MemorySource {
  let out: MemorySource | null = null;
  for (let i = 0; i < SOURCE_FIELDS.length; i++) {
    const name = SOURCE_FIELDS[i] as (typeof SOURCE_FIELDS)[number];
    const value = source[name];
    if (typeof value !== 'string') continue;
    const next = visit(value, `${at}.${name}`, MODEL_FACING_SOURCE[i] as boolean);
    if (next !== value) (out ??= { ...source })[name] = next;
  }
  return out ?? source;
}

function mapJson(value: JsonValue, at: string, visit: StringVisitor): JsonValue {
  if (typeof value === 'string') return visit(value, at, false);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || Math.abs(value) < LONG_INTEGER) return value;
    const text = String(value);
    const next = visit(text, at, false);
    return next === text ? value : next;
  }
  if (value === null || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      const next = mapJson(item, `${at}[${i}]`, visit);
      if (next !== item) (out ??= [...value])[i] = next;
    }
    return out ?? value;
  }
  return mapObject(value, at, visit, false);
}

function mapObject(value: JsonObject, at: string, visit: StringVisitor, skipReport: boolean): JsonObject {
  let out: JsonObject | null = null;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || (skipReport && key === SAFETY_METADATA_KEY)) continue;
    const item = value[key] as JsonValue;
    const next = mapJson(item, `${at}.${key}`, visit);
    if (next !== item) (out ??= { ...value })[key] = next;
  }
  return out ?? value;
}

/**
 * Applies `visit` to every string a memory carries: text, summary, background, key, tags, the
 * sources' content / title / url / id, and metadata values at any depth (long integers too, as
 * a card number may be stored as a number). Returns `target` itself when nothing changed, else
 * a shallow copy with the changed fields replaced; `target` is never mutated. Metadata keys are
 * not visited. One pass without a closure or an array per memory: it runs on every write.
 */
export function mapMemoryStrings<T extends SafetyFields>(
  target: T,
  visit: StringVisitor,
  options: MapStringsOptions = {},
): T {
  let out: T | null = null;
  const { text, summary, background, key, tags, sources, metadata } = target;
  if (typeof text === 'string') {
    const next = visit(text, 'text', true);
    if (next !== text) (out ??= { ...target }).text = next;
  }
  if (typeof summary === 'string') {
    const next = visit(summary, 'summary', true);
    if (next !== summary) (out ??= { ...target }).summary = next;
  }
  if (typeof background === 'string') {
    const next = visit(background, 'background', true);
    if (next !== background) (out ??= { ...target }).background = next;
  }
  if (typeof key === 'string') {
    const next = visit(key, 'key', true);
    if (next !== key) (out ??= { ...target }).key = next;
  }
  if (tags !== undefined) {
    let mapped: string[] | null = null;
    for (let i = 0; i < tags.length; i++) {
      const tag = tags[i] as string;
      const next = visit(tag, `tags[${i}]`, true);
      if (next !== tag) (mapped ??= [...tags])[i] = next;
    }
    if (mapped !== null) (out ??= { ...target }).tags = mapped;
  }
  if (sources !== undefined) {
    let mapped: MemorySource[] | null = null;
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i] as MemorySource;
      const next = mapSource(source, `sources[${i}]`, visit);
      if (next !== source) (mapped ??= [...sources])[i] = next;
    }
    if (mapped !== null) (out ??= { ...target }).sources = mapped;
  }
  if (metadata !== undefined) {
    const next = mapObject(metadata, 'metadata', visit, options.skipSafetyMetadata === true);
    if (next !== metadata) (out ??= { ...target }).metadata = next;
  }
  return out ?? target;
}
