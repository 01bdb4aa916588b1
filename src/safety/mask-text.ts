import type { Finding } from './detect/finding.js';
import type { SensitiveAction } from './safety-policy.js';
import type { SensitiveCategory } from './sensitive-category.js';

/** A string after the policy: its masked text and what was masked or would be rejected. */
export interface MaskOutcome {
  text: string;
  masked: Finding[];
  rejected: Finding[];
}

/**
 * Replaces each finding the policy masks by its mask and lists the ones it rejects. With
 * `maskRejected` (scrubbing stored data, which cannot be refused), rejected ones are masked too.
 */
export function maskText(
  text: string,
  findings: readonly Finding[],
  actions: Readonly<Record<SensitiveCategory, SensitiveAction>>,
  maskRejected = false,
): MaskOutcome {
  const masked: Finding[] = [];
  const rejected: Finding[] = [];
  let out = '';
  let at = 0;
  for (const f of findings) {
    const action = actions[f.category];
    if (action === 'keep') continue;
    if (action === 'reject') rejected.push(f);
    if (action === 'mask' || maskRejected) {
      masked.push(f);
      out += text.slice(at, f.start) + f.mask;
      at = f.end;
    }
  }
  return { text: masked.length === 0 ? text : out + text.slice(at), masked, rejected };
}
