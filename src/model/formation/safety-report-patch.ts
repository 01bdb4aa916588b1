import type { JsonObject, JsonValue } from '../json.js';
import { SAFETY_METADATA_KEY } from '../memory-flag.js';

/**
 * What the write guard found in the fields one formation operation writes (categories, kinds,
 * fields and flags — never a value), for the memory's safety report in `metadata.engramSafety`.
 * The store applies it in the window's transaction, where the memory's current report is read:
 * the guard runs before it and cannot see it.
 */
export interface SafetyReportPatch {
  /** Top-level fields the operation replaces (`text`, `key`, `tags`): their old entries are dropped. */
  replaces: string[];
  /** The report's `items` for what the operation writes; `sources[i]` paths index the operation's `addSources`. */
  items: JsonObject[];
  /** The report's `flags` for what the operation writes, paths as in `items`. */
  flags: JsonObject[];
}

/** The top-level memory field a report path belongs to: `tags[2]` → `tags`, `metadata.a.b` → `metadata`. */
export function topField(path: string): string {
  const end = path.search(/[.[]/);
  return end === -1 ? path : path.slice(0, end);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entries(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** `sources[j]…` of an operation's `addSources` → where source j landed among the memory's sources, or null when it was a repeat. */
export type SourceIndex = (added: number) => number | null;

function rebase(entry: JsonObject, sourceIndex: SourceIndex): JsonObject | null {
  const field = entry.field;
  if (typeof field !== 'string') return null;
  const match = /^sources\[(\d+)\]/.exec(field);
  if (match === null) return entry;
  const at = sourceIndex(Number(match[1]));
  return at === null ? null : { ...entry, field: `sources[${at}]${field.slice(match[0].length)}` };
}

/**
 * `metadata` with `patch` applied to its safety report: entries of the replaced fields dropped,
 * the patch's entries added (their source paths rebased), the per-category counts recomputed;
 * the key removed when the report ends up empty. Returns `metadata` itself when there is nothing
 * to change.
 */
export function applySafetyReportPatch(
  metadata: JsonObject,
  patch: SafetyReportPatch | undefined,
  sourceIndex: SourceIndex = (added) => added,
): JsonObject {
  if (patch === undefined) return metadata;
  const stored = metadata[SAFETY_METADATA_KEY];
  const previous = isObject(stored) ? stored : {};
  const replaced = new Set(patch.replaces);
  const keep = (entry: JsonObject): boolean => typeof entry.field === 'string' && !replaced.has(topField(entry.field));
  const added = (list: JsonObject[]): JsonObject[] =>
    list.flatMap((entry) => {
      const out = rebase(entry, sourceIndex);
      return out === null ? [] : [out];
    });
  const items = [...entries(previous.items).filter(keep), ...added(patch.items)];
  const flags = [...entries(previous.flags).filter(keep), ...added(patch.flags)];
  if (items.length === 0 && flags.length === 0) {
    if (!(SAFETY_METADATA_KEY in metadata)) return metadata;
    const out = { ...metadata };
    delete out[SAFETY_METADATA_KEY];
    return out;
  }
  const masked: JsonObject = {};
  for (const item of items)
    if (typeof item.category === 'string') masked[item.category] = ((masked[item.category] as number) ?? 0) + 1;
  return { ...metadata, [SAFETY_METADATA_KEY]: { masked, items, flags } };
}
