import { LiteralIndex } from '../literal-index.js';
import { finding, type Finding } from './finding.js';
import { looksLikePlaceholder } from './looks-like-placeholder.js';
import { SECRET_RULES, type SecretRule } from './secret-rules.js';

function accepts(rule: SecretRule, value: string): boolean {
  return rule.accept === undefined ? !looksLikePlaceholder(value) : rule.accept(value);
}

/** One scan finds the rules worth running: those with a trigger in the text. */
const TRIGGERS = new LiteralIndex(
  SECRET_RULES.length,
  SECRET_RULES.flatMap((rule, i) =>
    rule.trigger.map((literal) => [literal, i, rule.triggerAtWordStart === true] as const),
  ),
);

/** The rules of {@link SECRET_RULES} with a trigger in `text` (`[i]` is 1), or null when none has. */
export function secretTriggers(text: string): Uint8Array | null {
  return TRIGGERS.find(text);
}

/**
 * Every secret {@link SECRET_RULES} find in `text`, possibly overlapping (the caller resolves).
 * `triggered`: the text's {@link secretTriggers}, when the caller has them already.
 */
export function detectSecrets(text: string, triggered: Uint8Array | null = TRIGGERS.find(text)): Finding[] {
  if (triggered === null) return [];
  const out: Finding[] = [];
  for (let i = 0; i < SECRET_RULES.length; i++) {
    if (triggered[i] !== 1) continue;
    const rule = SECRET_RULES[i] as SecretRule;
    const mask = `[secret:${rule.maskLabel ?? rule.kind}]`;
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
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
