import type { JsonObject } from '../model/json.js';
import type { SensitiveCategory } from './sensitive-category.js';

/** One masked value: where it was and what it was, never the value. */
export interface MaskedItem {
  /** Path of the field: `text`, `tags[1]`, `sources[0].content`, `metadata.billing.card`. */
  field: string;
  category: SensitiveCategory;
  /** The provider, brand, country or id name (`openai`, `Visa`, `DE`, `us-ssn`). */
  kind: string;
}

/** A field whose text tries to instruct the model. The memory is kept; the flag says why. */
export interface PoisoningFlag {
  field: string;
  /** The guard's score (flagged from the policy's threshold up). */
  score: number;
  /** Ids of the guard rules that matched. */
  rules: string[];
  /** One line for people: what the text tries to do, with the phrases that show it. */
  reason: string;
}

/** What the write guard did to one memory. */
export interface SafetyReport {
  /** Masked values per category (categories with none are absent). */
  masked: Partial<Record<SensitiveCategory, number>>;
  items: MaskedItem[];
  flags: PoisoningFlag[];
}

/** A report with nothing in it. */
export function emptyReport(): SafetyReport {
  return { masked: {}, items: [], flags: [] };
}

/** True when nothing was masked and nothing flagged. */
export function isCleanReport(report: SafetyReport): boolean {
  return report.items.length === 0 && report.flags.length === 0;
}

/** The report as plain JSON, for a memory's metadata or explanation. */
export function safetyReportToJson(report: SafetyReport): JsonObject {
  return {
    masked: { ...report.masked },
    items: report.items.map((item) => ({ ...item })),
    flags: report.flags.map((flag) => ({ ...flag, rules: [...flag.rules] })),
  };
}
