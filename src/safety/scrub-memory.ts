import type { Memory } from '../model/memory.js';
import { runSafety } from './run-safety.js';
import { DEFAULT_SAFETY_POLICY, type SafetyPolicy } from './safety-policy.js';
import type { SafetyReport } from './safety-report.js';
import type { SensitiveCategory } from './sensitive-category.js';

/** The outcome of {@link scrubMemory}. */
export interface ScrubResult {
  /** The memory with the policy applied; the same object when nothing changed. */
  memory: Memory;
  changed: boolean;
  /** Fields that changed, in the order they were visited. */
  changedFields: string[];
  report: SafetyReport;
  /**
   * Values of categories the policy rejects, per category. A stored memory cannot be refused, so
   * they are masked like the rest and counted here (a scrub command may list or archive them).
   */
  rejected: Partial<Record<SensitiveCategory, number>>;
}

/**
 * Applies the write policy to a memory already stored (for `engram scrub`): the same detection,
 * masks and guard as {@link applyWriteSafety}, but never throws for a rejected category — it
 * masks it and counts it in `rejected`. Pure; the caller writes the result and its history entry.
 */
export function scrubMemory(memory: Memory, policy: SafetyPolicy = DEFAULT_SAFETY_POLICY): ScrubResult {
  const pass = runSafety(memory, policy, 'scrub');
  const rejected: ScrubResult['rejected'] = {};
  for (const r of pass.rejected) rejected[r.category] = (rejected[r.category] ?? 0) + 1;
  const changedFields = [...new Set(pass.report.items.map((item) => item.field))];
  return { memory: pass.value, changed: pass.value !== memory, changedFields, report: pass.report, rejected };
}
