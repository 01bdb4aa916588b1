import { EngramError } from '../model/errors.js';
import type { CleanStrings } from './clean-strings.js';
import type { SafetyFields } from './memory-fields.js';
import { runSafety } from './run-safety.js';
import { DEFAULT_SAFETY_POLICY, type SafetyPolicy } from './safety-policy.js';
import type { SafetyReport } from './safety-report.js';

/** The outcome of {@link applyWriteSafety}. */
export interface WriteSafetyResult<T> {
  /** The input with masked values replaced; the same object when nothing was masked. */
  input: T;
  /** What was masked (categories, counts, fields, kinds) and what was flagged. Never a value. */
  report: SafetyReport;
  /** True when `input` differs from what was passed in. */
  changed: boolean;
}

/** Options of {@link applyWriteSafety}. */
export interface ApplyWriteSafetyOptions {
  /** Prefix of the field paths in errors, e.g. `memories[3]` (the report's paths stay relative). @default none */
  field?: string | undefined;
  /**
   * Shared by the memories of one batch: strings inside a clean string of an earlier memory
   * (a background repeating the previous turn) are not scanned again. Same answers. @default none
   */
  clean?: CleanStrings | undefined;
  /** Count masks already in `text`, `key` and `tags` (see `RunSafetyOptions`). @default false */
  recogniseMasks?: boolean | undefined;
}

/** A report's field path as the request names it (`memories[3].text`). */
function pathIn(prefix: string | undefined, field: string): string {
  return prefix === undefined ? field : `${prefix}.${field}`;
}

function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/**
 * The write guard, for every path that stores a memory (`add`, `addMany`, `update`, `import`,
 * `restore`, capture, REST, MCP, formation before extraction). Pure and synchronous.
 *
 * Every string the input carries (text, summary, background, key, tags, sources' content /
 * title / url / id, metadata values at any depth) is searched for secrets, card numbers, IBANs,
 * national ids, phone numbers and e-mail addresses; what the policy masks is replaced by a mask
 * that keeps what a person needs to recognise it (`[card Visa •••• 4242]`, `[secret:openai]`,
 * `[iban DE •••• 3000]`). Then the masked text is read by the poisoning guard; text that tries to
 * instruct the model is flagged in the report (the memory is kept) or, if the policy says so,
 * refused. Categories the policy keeps are not searched for.
 *
 * @param input a `MemoryInput`, a `MemoryPatch` or anything with those fields; never mutated.
 * @param policy @default DEFAULT_SAFETY_POLICY (see `resolveSafetyPolicy` for the three levels)
 * @param options where the input sits in the request, for the errors' field paths
 * @throws EngramError('SENSITIVE_DATA_REJECTED') when a category the policy rejects is present;
 *   `details` has `categories` and `fields`, the message names them, neither holds the value.
 * @throws EngramError('INSTRUCTION_REJECTED') when the policy rejects instruction-like text;
 *   `details` has `fields` and `rules`.
 */
export function applyWriteSafety<T extends SafetyFields>(
  input: T,
  policy: SafetyPolicy = DEFAULT_SAFETY_POLICY,
  options: ApplyWriteSafetyOptions = {},
): WriteSafetyResult<T> {
  const pass = runSafety(input, policy, 'write', options);
  if (pass.rejected.length > 0) {
    const categories = unique(pass.rejected.map((r) => r.category));
    const fields = unique(pass.rejected.map((r) => pathIn(options.field, r.field)));
    const where = pass.rejected.map((r) => `${r.category} in ${pathIn(options.field, r.field)}`);
    throw new EngramError(
      'SENSITIVE_DATA_REJECTED',
      `the memory holds data the safety policy rejects: ${unique(where).join(', ')}`,
      {
        details: { categories, fields },
      },
    );
  }
  if (policy.poisoning.action === 'reject' && pass.report.flags.length > 0) {
    const fields = unique(pass.report.flags.map((f) => pathIn(options.field, f.field)));
    const rules = unique(pass.report.flags.flatMap((f) => f.rules));
    throw new EngramError(
      'INSTRUCTION_REJECTED',
      `the memory's ${fields.join(', ')} tries to instruct the model (${rules.join(', ')}); the safety policy rejects such text`,
      {
        details: { fields, rules },
      },
    );
  }
  return { input: pass.value, report: pass.report, changed: pass.value !== input };
}
