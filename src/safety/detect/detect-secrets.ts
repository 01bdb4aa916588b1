import { finding, type Finding } from './finding.js';
import { looksLikePlaceholder } from './looks-like-placeholder.js';
import { SECRET_RULES, type SecretRule } from './secret-rules.js';

function triggered(rule: SecretRule, text: string): boolean {
  if (rule.trigger instanceof RegExp) return rule.trigger.test(text);
  for (const literal of rule.trigger) if (text.includes(literal)) return true;
  return false;
}

function accepts(rule: SecretRule, value: string): boolean {
  return rule.accept === undefined ? !looksLikePlaceholder(value) : rule.accept(value);
}

/** Every secret {@link SECRET_RULES} find in `text`, possibly overlapping (the caller resolves). */
export function detectSecrets(text: string): Finding[] {
  const out: Finding[] = [];
  for (const rule of SECRET_RULES) {
    if (!triggered(rule, text)) continue;
    const mask = `[secret:${rule.maskLabel ?? rule.kind}]`;
    rule.pattern.lastIndex = 0;
    for (const match of text.matchAll(rule.pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (rule.valueGroup === undefined) {
        if (accepts(rule, match[0])) out.push(finding('secret', rule.kind, start, end, mask));
        continue;
      }
      const span = match.indices?.[rule.valueGroup];
      const value = match[rule.valueGroup];
      if (span === undefined || value === undefined || !accepts(rule, value)) continue;
      const trimmed = trimValue(value);
      out.push({
        category: 'secret',
        kind: rule.kind,
        start: span[0],
        end: span[0] + trimmed,
        claimStart: start,
        claimEnd: end,
        mask,
      });
    }
  }
  return out;
}

/** Length of a captured value without the sentence punctuation that followed it. */
function trimValue(value: string): number {
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length > 1) return value.length;
  return value.replace(/[.,;)]+$/, '').length;
}
