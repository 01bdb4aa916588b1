import { EngramError } from '../../model/errors.js';
import { finding, type Finding } from './finding.js';
import { luhnValid } from './luhn.js';
import type { NationalIdRule } from '../../model/safety-policy-patch.js';

export type { NationalIdRule } from '../../model/safety-policy-patch.js';

/** Built-in rules, enabled by name in `nationalIds`. */
export const NATIONAL_ID_PRESETS: Readonly<Record<string, NationalIdRule>> = Object.freeze({
  // SSA, "Social Security Number Randomization" (2011): area 000, 666 and 900–999, group 00 and
  // serial 0000 are never issued. Written with dashes or spaces, consistently.
  'us-ssn': {
    name: 'us-ssn',
    pattern: String.raw`(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])`,
  },
  // HMRC National Insurance Manual NIM39110: two prefix letters (not D F I Q U V; second not O;
  // BG GB KN NK NT TN ZZ never used), six digits, suffix A–D.
  'uk-nino': {
    name: 'uk-nino',
    pattern: String.raw`(?<![A-Za-z0-9])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])`,
  },
  // Canada Revenue Agency: the SIN is 9 digits with a Luhn check, written 3-3-3.
  'ca-sin': {
    name: 'ca-sin',
    pattern: String.raw`(?<![\d-])[1-79]\d{2}([- ])\d{3}\1\d{3}(?![\d-])`,
    checksum: 'luhn',
  },
});

/** A rule ready to run. */
export interface CompiledNationalId {
  name: string;
  pattern: RegExp;
  checksum: 'none' | 'luhn';
}

const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/i;
const compiled = new Map<string, CompiledNationalId>();

/** Compiles a preset name or a rule; bad input is `INVALID_INPUT` naming the field, never echoing a pattern's matches. */
export function compileNationalId(spec: string | NationalIdRule, field: string): CompiledNationalId {
  const rule = typeof spec === 'string' ? NATIONAL_ID_PRESETS[spec] : spec;
  if (rule === undefined) {
    const known = Object.keys(NATIONAL_ID_PRESETS).join(', ');
    throw new EngramError(
      'INVALID_INPUT',
      `${field}: unknown national id preset ${JSON.stringify(spec)} (known: ${known})`,
      {
        details: { field },
      },
    );
  }
  const key = `${rule.name}\u0000${rule.pattern}\u0000${rule.flags ?? ''}\u0000${rule.checksum ?? 'none'}`;
  const hit = compiled.get(key);
  if (hit !== undefined) return hit;
  if (!NAME.test(rule.name)) {
    throw new EngramError('INVALID_INPUT', `${field}.name must be letters, digits and dashes`, {
      details: { field: `${field}.name` },
    });
  }
  const flags = (rule.flags ?? '').replace(/g/g, '');
  if (!/^[imsuv]*$/.test(flags)) {
    throw new EngramError('INVALID_INPUT', `${field}.flags may only hold i, m, s, u, v`, {
      details: { field: `${field}.flags` },
    });
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(rule.pattern, `${flags}g`);
  } catch (error) {
    throw new EngramError('INVALID_INPUT', `${field}.pattern is not a valid regular expression`, {
      cause: error,
      details: { field: `${field}.pattern` },
    });
  }
  const out: CompiledNationalId = { name: rule.name, pattern, checksum: rule.checksum ?? 'none' };
  if (compiled.size < 256) compiled.set(key, out);
  return out;
}

/** Matches of the configured national id rules. */
export function detectNationalIds(text: string, rules: readonly CompiledNationalId[]): Finding[] {
  const out: Finding[] = [];
  for (const rule of rules) {
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (match[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      if (rule.checksum === 'luhn' && !luhnValid(match[0].replace(/\D/g, ''))) continue;
      out.push(finding('nationalId', rule.name, match.index, match.index + match[0].length, `[id:${rule.name}]`));
    }
  }
  return out;
}
