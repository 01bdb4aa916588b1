import { compilePolicy } from './compile-policy.js';
import { detectSensitive } from './detect/detect-sensitive.js';
import type { Finding } from './detect/finding.js';
import { checkInstructions, type GuardVerdict } from './guard/poisoning-guard.js';
import { maskText } from './mask-text.js';
import { mapMemoryStrings, type SafetyFields } from './memory-fields.js';
import type { SafetyPolicy } from './safety-policy.js';
import { emptyReport, type SafetyReport } from './safety-report.js';
import type { SensitiveCategory } from './sensitive-category.js';

/** Tool memories hold tool calls by nature; the guard does not flag their syntax. */
const TOOL_TYPES = new Set(['ToolSchemaMemory', 'ToolTrajectoryMemory']);

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

/** One pass of the policy over a memory, shared by the write path and scrubbing. */
export interface SafetyPass<T> {
  value: T;
  report: SafetyReport;
  /** Categories the policy rejects, with the fields they were in (empty when none). */
  rejected: Array<{ field: string; category: SensitiveCategory }>;
}

/**
 * Masks what the policy masks in every string field, lists what it rejects, and runs the
 * poisoning guard on the masked text (so a flag's reason never quotes a masked value).
 * Scrubbing (stored data, which cannot be refused) masks rejected values as well and leaves the
 * memory's own safety report alone.
 */
export function runSafety<T extends SafetyFields>(
  target: T,
  policy: SafetyPolicy,
  mode: 'write' | 'scrub',
): SafetyPass<T> {
  const maskRejected = mode === 'scrub';
  const report = emptyReport();
  const rejected: SafetyPass<T>['rejected'] = [];
  if (!policy.enabled) return { value: target, report, rejected };
  const compiled = compilePolicy(policy);
  const guard = policy.poisoning.action !== 'off';
  const seen = new Map<string, readonly Finding[]>();
  const verdicts = new Map<string, GuardVerdict>();
  const guardOptions = { threshold: policy.poisoning.threshold, allowToolSyntax: TOOL_TYPES.has(target.type ?? '') };
  const value = mapMemoryStrings(
    target,
    (text, field) => {
      let out = text;
      const guarded = guard && isModelFacing(field);
      if (compiled.detects) {
        // A memory often repeats a string (its key, a source id and a metadata id): detect once.
        let findings = seen.get(text);
        if (findings === undefined) seen.set(text, (findings = detectSensitive(text, compiled.detect)));
        if (findings.length > 0) {
          const outcome = maskText(text, findings, policy.actions, maskRejected);
          for (const f of outcome.rejected) rejected.push({ field, category: f.category });
          for (const f of outcome.masked) {
            report.masked[f.category] = (report.masked[f.category] ?? 0) + 1;
            report.items.push({ field, category: f.category, kind: f.kind });
          }
          out = outcome.text;
        }
      }
      if (guarded) {
        // Text and a chat source's content are often the same words: read them once.
        let verdict = verdicts.get(out);
        if (verdict === undefined) verdicts.set(out, (verdict = checkInstructions(out, guardOptions)));
        if (verdict.flagged) {
          report.flags.push({
            field,
            score: verdict.score,
            rules: verdict.hits.map((h) => h.rule),
            reason: verdict.reason,
          });
        }
      }
      return out;
    },
    { skipSafetyMetadata: maskRejected },
  );
  return { value, report, rejected };
}
