import type { CountryCode } from 'libphonenumber-js/max';

import type { DetectOptions } from './detect/detect-sensitive.js';
import { compileNationalId } from './detect/national-ids.js';
import type { SafetyPolicy } from './safety-policy.js';
import { SENSITIVE_CATEGORIES, type SensitiveCategory } from './sensitive-category.js';

/** A policy with its detection settings prepared: built once per policy value and cached. */
export interface CompiledPolicy {
  policy: SafetyPolicy;
  /** Detection skips the categories the policy keeps: they cost nothing. */
  detect: DetectOptions;
  /** True when some category is masked or rejected. */
  detects: boolean;
}

const cache = new WeakMap<SafetyPolicy, CompiledPolicy>();

export function compilePolicy(policy: SafetyPolicy): CompiledPolicy {
  const hit = cache.get(policy);
  if (hit !== undefined) return hit;
  const categories = new Set<SensitiveCategory>(SENSITIVE_CATEGORIES.filter((c) => policy.actions[c] !== 'keep'));
  const compiled: CompiledPolicy = {
    policy,
    detect: {
      categories,
      phoneRegion: (policy.phoneRegion ?? undefined) as CountryCode | undefined,
      nationalIds: policy.nationalIds.map((spec, i) => compileNationalId(spec, `safety.nationalIds[${i}]`)),
    },
    detects: policy.enabled && categories.size > 0,
  };
  cache.set(policy, compiled);
  return compiled;
}
