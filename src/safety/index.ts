export { applyWriteSafety, type WriteSafetyResult } from './apply-write-safety.js';
export { detectSensitive, type DetectOptions } from './detect/detect-sensitive.js';
export type { Finding } from './detect/finding.js';
export { NATIONAL_ID_PRESETS, type NationalIdRule } from './detect/national-ids.js';
export { checkInstructions, type GuardHit, type GuardOptions, type GuardVerdict } from './guard/poisoning-guard.js';
export { mapMemoryStrings, SAFETY_METADATA_KEY, type SafetyFields } from './memory-fields.js';
export {
  DEFAULT_SAFETY_POLICY,
  mergeSafetyPolicy,
  resolveSafetyPolicy,
  validateSafetyPolicyPatch,
  type PoisoningAction,
  type SafetyPolicy,
  type SafetyPolicyPatch,
  type SensitiveAction,
} from './safety-policy.js';
export {
  isCleanReport,
  safetyReportToJson,
  type MaskedItem,
  type PoisoningFlag,
  type SafetyReport,
} from './safety-report.js';
export { scrubMemory, type ScrubResult } from './scrub-memory.js';
export { isSensitiveCategory, SENSITIVE_CATEGORIES, type SensitiveCategory } from './sensitive-category.js';
export { FormationGuard, type GuardedOperations } from './formation-guard.js';
