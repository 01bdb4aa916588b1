import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';

import { EngramError } from '../model/errors.js';
import type {
  NationalIdRule,
  PoisoningAction,
  SafetyPolicyPatch,
  SensitiveAction,
} from '../model/safety-policy-patch.js';
import { compileNationalId, NATIONAL_ID_PRESETS } from './detect/national-ids.js';
import { SENSITIVE_CATEGORIES, type SensitiveCategory } from './sensitive-category.js';

export type { PoisoningAction, SafetyPolicyPatch, SensitiveAction } from '../model/safety-policy-patch.js';

/** The write-safety policy: a small plain value, merged at three levels (instance, tenant, call). */
export interface SafetyPolicy {
  /** `false` turns the whole guard off (no detection, no flags). @default true */
  readonly enabled: boolean;
  /**
   * Per category. @default secret, card, iban and nationalId `mask`; phone and email `keep`
   */
  readonly actions: Readonly<Record<SensitiveCategory, SensitiveAction>>;
  /** Country of phone numbers written without `+`/`00` (ISO 3166 alpha-2). @default null (international formats only) */
  readonly phoneRegion: CountryCode | null;
  /** National ids to detect: preset names (`us-ssn`, `uk-nino`, `ca-sin`) or rules. @default [] */
  readonly nationalIds: readonly (string | NationalIdRule)[];
  readonly poisoning: {
    /** @default 'flag' (the memory is kept and carries the flag) */
    readonly action: PoisoningAction;
    /** Guard score at which text is flagged. @default 1 */
    readonly threshold: number;
  };
}

/** The defaults a privacy-minded user would choose: secrets and financial data masked, contact details kept. */
export const DEFAULT_SAFETY_POLICY: SafetyPolicy = deepFreeze({
  enabled: true,
  actions: { secret: 'mask', card: 'mask', iban: 'mask', nationalId: 'mask', phone: 'keep', email: 'keep' },
  phoneRegion: null,
  nationalIds: [],
  poisoning: { action: 'flag', threshold: 1 },
});

const SENSITIVE_ORDER: readonly SensitiveAction[] = ['keep', 'mask', 'reject'];
const POISONING_ORDER: readonly PoisoningAction[] = ['off', 'flag', 'reject'];

function stricter<T>(order: readonly T[], a: T, b: T): T {
  return order.indexOf(b) > order.indexOf(a) ? b : a;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function specKey(spec: string | NationalIdRule): string {
  return typeof spec === 'string' ? spec : JSON.stringify(spec);
}

/**
 * `patch` over `base`. In `override` mode (instance → tenant) each value set replaces the
 * base's. In `tighten` mode (tenant → call) a patch can only make the policy stricter: an action
 * moves towards `reject`, never back; the guard can be switched on, not off; the threshold can
 * only go down; national ids are added, never removed, and only by preset name, so a request
 * can never bring its own regular expression. The result is validated and frozen.
 *
 * @throws EngramError('INVALID_INPUT') for an unknown key or value, naming the field.
 */
export function mergeSafetyPolicy(
  base: SafetyPolicy,
  patch: SafetyPolicyPatch | undefined,
  mode: 'override' | 'tighten' = 'override',
): SafetyPolicy {
  if (patch === undefined) return base;
  const checked = validateSafetyPolicyPatch(patch);
  const tighten = mode === 'tighten';
  const actions = { ...base.actions };
  for (const category of SENSITIVE_CATEGORIES) {
    const next = checked.actions?.[category];
    if (next !== undefined) actions[category] = tighten ? stricter(SENSITIVE_ORDER, actions[category], next) : next;
  }
  if (tighten && checked.nationalIds?.some((spec) => typeof spec !== 'string')) {
    throw new EngramError(
      'INVALID_INPUT',
      'safety.nationalIds: a call may name presets only; rules with patterns belong to the instance or tenant policy',
      {
        details: { field: 'safety.nationalIds' },
      },
    );
  }
  const nationalIds = tighten
    ? [
        ...base.nationalIds,
        ...(checked.nationalIds ?? []).filter((s) => !base.nationalIds.some((b) => specKey(b) === specKey(s))),
      ]
    : (checked.nationalIds ?? base.nationalIds);
  const action = checked.poisoning?.action;
  const threshold = checked.poisoning?.threshold;
  return deepFreeze({
    enabled: tighten ? base.enabled || checked.enabled === true : (checked.enabled ?? base.enabled),
    actions,
    phoneRegion: checked.phoneRegion === undefined ? base.phoneRegion : (checked.phoneRegion as CountryCode | null),
    nationalIds: [...nationalIds],
    poisoning: {
      action:
        action === undefined
          ? base.poisoning.action
          : tighten
            ? stricter(POISONING_ORDER, base.poisoning.action, action)
            : action,
      threshold:
        threshold === undefined
          ? base.poisoning.threshold
          : tighten
            ? Math.min(base.poisoning.threshold, threshold)
            : threshold,
    },
  });
}

/**
 * The policy in force for one write: the defaults, then the instance's patch and the tenant's
 * (each overriding), then the call's, which may only tighten (see {@link mergeSafetyPolicy}).
 */
export function resolveSafetyPolicy(levels: {
  instance?: SafetyPolicyPatch | undefined;
  tenant?: SafetyPolicyPatch | undefined;
  call?: SafetyPolicyPatch | undefined;
}): SafetyPolicy {
  const instance = mergeSafetyPolicy(DEFAULT_SAFETY_POLICY, levels.instance);
  const tenant = mergeSafetyPolicy(instance, levels.tenant);
  return mergeSafetyPolicy(tenant, levels.call, 'tighten');
}

function invalid(field: string, message: string): EngramError {
  return new EngramError('INVALID_INPUT', `${field}: ${message}`, { details: { field } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`${field}.${key}`, `unknown setting (known: ${allowed.join(', ')})`);
  }
}

function checkOneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(field, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function checkNationalIds(value: unknown, field: string): (string | NationalIdRule)[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    throw invalid(field, `must be a list of preset names (${Object.keys(NATIONAL_ID_PRESETS).join(', ')}) or rules`);
  return value.map((spec: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof spec === 'string') {
      compileNationalId(spec, at);
      return spec;
    }
    if (!isRecord(spec) || typeof spec.name !== 'string' || typeof spec.pattern !== 'string') {
      throw invalid(at, 'must be a preset name or { name, pattern, flags?, checksum? }');
    }
    checkKeys(spec, ['name', 'pattern', 'flags', 'checksum'], at);
    if (spec.flags !== undefined && typeof spec.flags !== 'string') throw invalid(`${at}.flags`, 'must be a string');
    const rule: NationalIdRule = {
      name: spec.name,
      pattern: spec.pattern,
      flags: spec.flags as string | undefined,
      checksum: checkOneOf(spec.checksum, ['none', 'luhn'] as const, `${at}.checksum`),
    };
    compileNationalId(rule, at);
    return rule;
  });
}

/**
 * Checks an untrusted patch (a config file, a tenant setting, a request body) and returns it
 * typed. Unknown keys and values are refused, so a misspelt setting never silently does nothing.
 *
 * @throws EngramError('INVALID_INPUT') naming the field.
 */
export function validateSafetyPolicyPatch(value: unknown, field = 'safety'): SafetyPolicyPatch {
  if (!isRecord(value)) throw invalid(field, 'must be an object');
  checkKeys(value, ['enabled', 'actions', 'phoneRegion', 'nationalIds', 'poisoning'], field);
  if (value.enabled !== undefined && typeof value.enabled !== 'boolean')
    throw invalid(`${field}.enabled`, 'must be true or false');
  let actions: SafetyPolicyPatch['actions'];
  if (value.actions !== undefined) {
    if (!isRecord(value.actions)) throw invalid(`${field}.actions`, 'must be an object');
    checkKeys(value.actions, SENSITIVE_CATEGORIES, `${field}.actions`);
    actions = {};
    for (const category of SENSITIVE_CATEGORIES) {
      const action = checkOneOf(value.actions[category], SENSITIVE_ORDER, `${field}.actions.${category}`);
      if (action !== undefined) actions[category] = action;
    }
  }
  const region = value.phoneRegion;
  if (region !== undefined && region !== null && (typeof region !== 'string' || !isSupportedCountry(region))) {
    throw invalid(`${field}.phoneRegion`, 'must be an ISO 3166 alpha-2 country code libphonenumber knows, or null');
  }
  let poisoning: SafetyPolicyPatch['poisoning'];
  if (value.poisoning !== undefined) {
    if (!isRecord(value.poisoning)) throw invalid(`${field}.poisoning`, 'must be an object');
    checkKeys(value.poisoning, ['action', 'threshold'], `${field}.poisoning`);
    const threshold = value.poisoning.threshold;
    if (threshold !== undefined && (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold <= 0)) {
      throw invalid(`${field}.poisoning.threshold`, 'must be a positive number');
    }
    poisoning = { action: checkOneOf(value.poisoning.action, POISONING_ORDER, `${field}.poisoning.action`), threshold };
  }
  return {
    enabled: value.enabled,
    actions,
    phoneRegion: region as string | null | undefined,
    nationalIds: checkNationalIds(value.nationalIds, `${field}.nationalIds`),
    poisoning,
  };
}
