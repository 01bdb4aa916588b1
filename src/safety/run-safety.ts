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

export { isModelFacing } from './memory-fields.js';

/** One pass of the policy over a memory, shared by the write path and scrubbing. */
export interface SafetyPass<T> {
  value: T;
  report: SafetyReport;
  /** Categories the policy rejects, with the fields they were in (empty when none). */
  rejected: Array<{ field: string; category: SensitiveCategory }>;
}

/** Strings shorter than this are not worth remembering: detection refuses them at once. */
const MIN_REMEMBERED = 6;

/**
 * The last results of one pass, by string: a memory often repeats one (its key, a source id and a
 * metadata id; a chat source's content and its text). A few slots compared with `===` cost less
 * than hashing every string into a Map.
 */
class Recent<V> {
  #keys: string[] = [];
  #values: V[] = [];

  get(key: string): V | undefined {
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return this.#values[i];
    return undefined;
  }

  set(key: string, value: V): V {
    if (key.length < MIN_REMEMBERED) return value;
    if (this.#keys.length >= 8) {
      this.#keys.shift();
      this.#values.shift();
    }
    this.#keys.push(key);
    this.#values.push(value);
    return value;
  }
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
  const detects = compiled.detects;
  const guard = policy.poisoning.action !== 'off';
  const seen = new Recent<readonly Finding[]>();
  const verdicts = new Recent<GuardVerdict>();
  const guardOptions = { threshold: policy.poisoning.threshold, allowToolSyntax: TOOL_TYPES.has(target.type ?? '') };
  const value = mapMemoryStrings(
    target,
    (text, field, modelFacing) => {
      let out = text;
      if (detects) {
        const findings = seen.get(text) ?? seen.set(text, detectSensitive(text, compiled.detect));
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
      if (guard && modelFacing) {
        const verdict = verdicts.get(out) ?? verdicts.set(out, checkInstructions(out, guardOptions));
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
