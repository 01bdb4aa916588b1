import { EngramError } from '../model/errors.js';
import type { Scope } from '../model/scope.js';
import { validateDate, validateText, type InputLimits } from '../model/validate.js';
import { TURN_ROLES, type NormalizedTurn, type TurnRole } from './episode.js';

/** Options of {@link validateTurns}. */
export interface ValidateTurnsOptions {
  limits: Pick<InputLimits, 'maxTextLength'>;
  /** The scope the turns go to; its `session` is the default session. */
  scope: Scope;
  /** Time given to turns without `occurredAt`. */
  now: () => Date;
  /** Most turns one call may carry. @default 1000 */
  maxTurns?: number | undefined;
  /** Prefix of error paths. @default 'messages' */
  field?: string | undefined;
}

const LABEL = /^[^\p{Cc}]{1,256}$/u;
const KNOWN = new Set(['role', 'text', 'content', 'speaker', 'session', 'messageId', 'occurredAt']);

function fail(message: string, field: string, extra: Record<string, unknown> = {}): never {
  throw new EngramError('INVALID_INPUT', message, { details: { field, ...extra } });
}

function label(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !LABEL.test(value) || !value.isWellFormed()) {
    fail(`${field} must be a string of 1 to 256 characters without control characters`, field);
  }
  return value;
}

function validateTurn(input: unknown, options: ValidateTurnsOptions, field: string): NormalizedTurn {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail(`${field} must be an object`, field);
  const turn = input as Record<string, unknown>;
  for (const key of Object.keys(turn))
    if (!KNOWN.has(key)) fail(`${field}.${key} is not a turn field`, `${field}.${key}`);
  if (!(TURN_ROLES as readonly unknown[]).includes(turn.role)) {
    fail(`${field}.role must be one of: ${TURN_ROLES.join(', ')}`, `${field}.role`, { allowed: [...TURN_ROLES] });
  }
  if (turn.text !== undefined && turn.content !== undefined) fail(`${field} has both text and content`, field);
  const text = validateText(turn.text ?? turn.content, options.limits.maxTextLength, `${field}.text`);
  return {
    role: turn.role as TurnRole,
    text,
    speaker: label(turn.speaker, `${field}.speaker`),
    session: label(turn.session, `${field}.session`) ?? options.scope.session ?? null,
    messageId: label(turn.messageId, `${field}.messageId`),
    occurredAt: validateDate(turn.occurredAt, `${field}.occurredAt`) ?? options.now().toISOString(),
  };
}

/**
 * Checks a transcript: a non-empty array of turns with a known role and a non-blank, well-formed
 * text within the limit (`content` is accepted as an alias, as chat APIs name it). The first bad
 * turn throws, naming its path (`messages[3].role`): nothing of a bad transcript is stored.
 * Codes: `INVALID_INPUT` (shape, role, labels, dates), `INVALID_TEXT`, `TEXT_TOO_LONG`,
 * `PAYLOAD_TOO_LARGE` (more than `maxTurns`).
 */
export function validateTurns(input: unknown, options: ValidateTurnsOptions): NormalizedTurn[] {
  const field = options.field ?? 'messages';
  const maxTurns = options.maxTurns ?? 1000;
  if (!Array.isArray(input) || input.length === 0) fail(`${field} must be a non-empty array of turns`, field);
  if (input.length > maxTurns) {
    throw new EngramError('PAYLOAD_TOO_LARGE', `${field} has ${input.length} turns; the limit is ${maxTurns}`, {
      details: { field, count: input.length, limit: maxTurns },
    });
  }
  return input.map((turn, i) => validateTurn(turn, options, `${field}[${i}]`));
}
