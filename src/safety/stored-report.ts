import { topField } from '../model/formation/safety-report-patch.js';
import type { JsonObject, JsonValue } from '../model/json.js';
import { SAFETY_METADATA_KEY } from './memory-fields.js';
import { emptyReport, isCleanReport, safetyReportToJson, type SafetyReport } from './safety-report.js';
import { isSensitiveCategory } from './sensitive-category.js';

/**
 * A memory's safety report as Engram keeps it in `metadata.engramSafety`: what was masked
 * (categories, counts, fields, kinds — never a value) and which fields were flagged as trying
 * to instruct the model, with the reason. The write path writes it, the read path and the
 * inspector read it.
 */

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The report stored in `metadata`, or an empty one. Tolerant: entries that do not have the
 * report's shape are dropped (metadata written by hand or by an older version).
 */
export function readStoredReport(metadata: JsonObject | null | undefined): SafetyReport {
  const stored = metadata?.[SAFETY_METADATA_KEY];
  const report = emptyReport();
  if (!isObject(stored)) return report;
  for (const item of Array.isArray(stored.items) ? stored.items : []) {
    if (!isObject(item) || typeof item.field !== 'string' || !isSensitiveCategory(item.category)) continue;
    report.items.push({
      field: item.field,
      category: item.category,
      kind: typeof item.kind === 'string' ? item.kind : '',
    });
    report.masked[item.category] = (report.masked[item.category] ?? 0) + 1;
  }
  for (const flag of Array.isArray(stored.flags) ? stored.flags : []) {
    if (!isObject(flag) || typeof flag.field !== 'string') continue;
    report.flags.push({
      field: flag.field,
      score: typeof flag.score === 'number' ? flag.score : 0,
      rules: strings(flag.rules),
      reason: typeof flag.reason === 'string' ? flag.reason : '',
    });
  }
  return report;
}

/** The top-level memory field a report path belongs to (shared with formation's report patches). */
export { topField } from '../model/formation/safety-report-patch.js';

/**
 * `next` over `previous`: entries of `previous` in the top-level fields `replaced` (a patch's
 * fields) are dropped, the rest kept, then `next`'s added. Counts are recomputed.
 */
export function mergeReports(previous: SafetyReport, next: SafetyReport, replaced: ReadonlySet<string>): SafetyReport {
  const merged = emptyReport();
  const keep = <T extends { field: string }>(entry: T): boolean => !replaced.has(topField(entry.field));
  merged.items = [...previous.items.filter(keep), ...next.items];
  merged.flags = [...previous.flags.filter(keep), ...next.flags];
  for (const item of merged.items) merged.masked[item.category] = (merged.masked[item.category] ?? 0) + 1;
  return merged;
}

/**
 * `metadata` with `report` as its safety report: set when the report says anything, removed when
 * it is clean. Whatever a caller put under the key is replaced — a caller cannot forge or hide
 * a flag. Returns `metadata` itself when nothing changes.
 */
export function withStoredReport(metadata: JsonObject, report: SafetyReport): JsonObject {
  const clean = isCleanReport(report);
  if (clean && !(SAFETY_METADATA_KEY in metadata)) return metadata;
  const out: JsonObject = { ...metadata };
  if (clean) delete out[SAFETY_METADATA_KEY];
  else out[SAFETY_METADATA_KEY] = safetyReportToJson(report) as JsonValue;
  return out;
}
