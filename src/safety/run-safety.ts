import { CleanStrings, DETECTION_CLEAN, GUARD_CLEAN, NO_SECRET_TRIGGER } from './clean-strings.js';
import { compilePolicy } from './compile-policy.js';
import { detectSensitive, type SecretTriggerNote } from './detect/detect-sensitive.js';
import type { Finding } from './detect/finding.js';
import { checkInstructions, type GuardVerdict } from './guard/poisoning-guard.js';
import { findMasks, type FoundMask } from './find-masks.js';
import { maskText } from './mask-text.js';
import { mapMemoryStrings, type SafetyFields } from './memory-fields.js';
import type { SafetyPolicy } from './safety-policy.js';
import type { ScanNote } from './scan-note.js';
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

/** Options of {@link runSafety}. */
export interface RunSafetyOptions {
  /** Shared by the memories of one batch (see {@link CleanStrings}). @default none */
  clean?: CleanStrings | undefined;
  /**
   * Masks already in `text`, `key` and `tags` (the fields formation's LLMs write, from facts
   * masked before) are counted in the report and never masked again. @default false
   */
  recogniseMasks?: boolean | undefined;
}

/** The fields an LLM writes in formation: where {@link RunSafetyOptions.recogniseMasks} looks. */
function writtenByModel(field: string): boolean {
  return field === 'text' || field === 'key' || field.startsWith('tags[');
}

/** Whether a finding's value overlaps one of the masks. */
function inMask(finding: Finding, masks: readonly FoundMask[]): boolean {
  return masks.some((m) => finding.start < m.end && m.start < finding.end);
}

/** One note of each kind for every scan: a pass is synchronous and reads them right after each scan. */
const NOTE: ScanNote = { nothingWithin: false };
const TRIGGERS: SecretTriggerNote = { none: false };
const NO_MASKS: readonly FoundMask[] = Object.freeze([]);

/**
 * Masks what the policy masks in every string field, lists what it rejects, and runs the
 * poisoning guard on the masked text (so a flag's reason never quotes a masked value).
 * Scrubbing (stored data, which cannot be refused) masks rejected values as well and leaves the
 * memory's own safety report alone. `clean`, shared by the memories of a batch, skips the scans
 * of strings that stand inside one already found clean (same answers, see {@link CleanStrings}).
 */
export function runSafety<T extends SafetyFields>(
  target: T,
  policy: SafetyPolicy,
  mode: 'write' | 'scrub',
  options: RunSafetyOptions = {},
): SafetyPass<T> {
  const { clean, recogniseMasks = false } = options;
  const maskRejected = mode === 'scrub';
  const report = emptyReport();
  const rejected: SafetyPass<T>['rejected'] = [];
  if (!policy.enabled) return { value: target, report, rejected };
  const compiled = compilePolicy(policy);
  const detects = compiled.detects;
  const guard = policy.poisoning.action !== 'off';
  const seen = new Recent<readonly Finding[]>();
  const verdicts = new Recent<GuardVerdict>();
  const allowToolSyntax = TOOL_TYPES.has(target.type ?? '');
  const guardOptions = { threshold: policy.poisoning.threshold, allowToolSyntax };
  clean?.use(compiled);
  const value = mapMemoryStrings(
    target,
    (text, field, modelFacing) => {
      const guarded = guard && modelFacing;
      const known = clean === undefined ? 0 : clean.lookup(text, allowToolSyntax);
      // The scans that found nothing in this string, and what is ruled out of every part of it
      // (a scan not run finds nothing).
      let found = detects ? 0 : DETECTION_CLEAN;
      let within = detects ? 0 : NO_SECRET_TRIGGER;
      let out = text;
      const masks = recogniseMasks && writtenByModel(field) ? findMasks(text) : NO_MASKS;
      for (const m of masks) {
        report.masked[m.category] = (report.masked[m.category] ?? 0) + 1;
        report.items.push({ field, category: m.category, kind: m.kind });
      }
      if (detects && (known & DETECTION_CLEAN) === 0) {
        let findings = seen.get(text);
        if (findings === undefined) {
          TRIGGERS.none = (known & NO_SECRET_TRIGGER) !== 0;
          findings = seen.set(text, detectSensitive(text, compiled.detect, TRIGGERS));
          if (TRIGGERS.none) within |= NO_SECRET_TRIGGER;
        }
        if (masks.length > 0 && findings.length > 0) findings = findings.filter((f) => !inMask(f, masks));
        if (findings.length === 0) found |= DETECTION_CLEAN;
        else {
          const outcome = maskText(text, findings, policy.actions, maskRejected);
          for (const f of outcome.rejected) rejected.push({ field, category: f.category });
          for (const f of outcome.masked) {
            report.masked[f.category] = (report.masked[f.category] ?? 0) + 1;
            report.items.push({ field, category: f.category, kind: f.kind });
          }
          out = outcome.text;
        }
      }
      if (!guarded) {
        found |= GUARD_CLEAN;
        within |= GUARD_CLEAN;
      } else if (out !== text || (known & GUARD_CLEAN) === 0) {
        // Masked, the string is another text: what is known of the unmasked one does not hold.
        let verdict = verdicts.get(out);
        if (verdict === undefined) {
          verdict = verdicts.set(out, checkInstructions(out, guardOptions, NOTE));
          if (NOTE.nothingWithin && out === text) within |= GUARD_CLEAN;
        }
        if (!verdict.flagged && out === text) found |= GUARD_CLEAN;
        if (verdict.flagged) {
          report.flags.push({
            field,
            score: verdict.score,
            rules: verdict.hits.map((h) => h.rule),
            reason: verdict.reason,
          });
        }
      }
      // Strings read in full in which detection found nothing are remembered; what is known of a
      // part adds nothing. Only a model-facing string vouches for the guard and for its parts.
      if (clean !== undefined && known === 0 && (found & DETECTION_CLEAN) !== 0 && masks.length === 0)
        clean.remember(text, modelFacing ? found : DETECTION_CLEAN, modelFacing ? within : 0, allowToolSyntax);
      return out;
    },
    { skipSafetyMetadata: maskRejected },
  );
  return { value, report, rejected };
}
