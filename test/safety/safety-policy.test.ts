import { describe, expect, it } from 'vitest';

import { EngramError, isEngramError } from '../../src/model/errors.js';
import {
  DEFAULT_SAFETY_POLICY,
  mergeSafetyPolicy,
  resolveSafetyPolicy,
  validateSafetyPolicyPatch,
} from '../../src/safety/safety-policy.js';

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isEngramError(error, 'INVALID_INPUT'), String(error)).toBe(true);
    return String((error as EngramError).details.field);
  }
  throw new Error('expected INVALID_INPUT');
}

describe('defaults', () => {
  it('masks secrets, cards, IBANs and national ids, keeps e-mail and phone, flags instructions', () => {
    expect(DEFAULT_SAFETY_POLICY.actions).toEqual({
      secret: 'mask',
      card: 'mask',
      iban: 'mask',
      nationalId: 'mask',
      phone: 'keep',
      email: 'keep',
    });
    expect(DEFAULT_SAFETY_POLICY.poisoning).toEqual({ action: 'flag', threshold: 1 });
    expect(DEFAULT_SAFETY_POLICY.enabled).toBe(true);
  });

  it('is frozen, so no caller changes everybody’s defaults', () => {
    expect(Object.isFrozen(DEFAULT_SAFETY_POLICY.actions)).toBe(true);
    expect(() => {
      (DEFAULT_SAFETY_POLICY.actions as Record<string, string>).card = 'keep';
    }).toThrow(TypeError);
  });
});

describe('three levels', () => {
  it('lets the tenant override the instance in both directions', () => {
    const policy = resolveSafetyPolicy({
      instance: { actions: { email: 'mask', card: 'reject' }, phoneRegion: 'DE' },
      tenant: { actions: { card: 'mask' }, nationalIds: ['us-ssn'] },
    });
    expect(policy.actions.email).toBe('mask');
    expect(policy.actions.card).toBe('mask');
    expect(policy.phoneRegion).toBe('DE');
    expect(policy.nationalIds).toEqual(['us-ssn']);
  });

  it('lets a call only tighten: stricter actions apply, looser ones are ignored', () => {
    const policy = resolveSafetyPolicy({
      tenant: { actions: { card: 'reject', email: 'keep' }, poisoning: { action: 'reject', threshold: 0.8 } },
      call: { actions: { card: 'keep', email: 'mask' }, enabled: false, poisoning: { action: 'off', threshold: 5 } },
    });
    expect(policy.actions.card).toBe('reject');
    expect(policy.actions.email).toBe('mask');
    expect(policy.enabled).toBe(true);
    expect(policy.poisoning).toEqual({ action: 'reject', threshold: 0.8 });
  });

  it('lets a call add national id presets but never bring its own pattern', () => {
    const base = resolveSafetyPolicy({ tenant: { nationalIds: ['us-ssn'] } });
    expect(mergeSafetyPolicy(base, { nationalIds: ['uk-nino', 'us-ssn'] }, 'tighten').nationalIds).toEqual([
      'us-ssn',
      'uk-nino',
    ]);
    expect(fieldOf(() => resolveSafetyPolicy({ call: { nationalIds: [{ name: 'x', pattern: '(a+)+$' }] } }))).toBe(
      'safety.nationalIds',
    );
  });

  it('returns the base itself for no patch, and a new frozen value otherwise', () => {
    expect(mergeSafetyPolicy(DEFAULT_SAFETY_POLICY, undefined)).toBe(DEFAULT_SAFETY_POLICY);
    const merged = mergeSafetyPolicy(DEFAULT_SAFETY_POLICY, { actions: { phone: 'mask' } });
    expect(merged).not.toBe(DEFAULT_SAFETY_POLICY);
    expect(Object.isFrozen(merged.poisoning)).toBe(true);
    expect(DEFAULT_SAFETY_POLICY.actions.phone).toBe('keep');
  });
});

describe('validation of untrusted patches', () => {
  it.each([
    [{ action: {} }, 'safety.action'],
    [{ actions: { creditcard: 'mask' } }, 'safety.actions.creditcard'],
    [{ actions: { card: 'hide' } }, 'safety.actions.card'],
    [{ enabled: 'yes' }, 'safety.enabled'],
    [{ phoneRegion: 'XY' }, 'safety.phoneRegion'],
    [{ poisoning: { threshold: 0 } }, 'safety.poisoning.threshold'],
    [{ poisoning: { action: 'block' } }, 'safety.poisoning.action'],
    [{ nationalIds: 'us-ssn' }, 'safety.nationalIds'],
    [{ nationalIds: ['us-ssn', 'xx-id'] }, 'safety.nationalIds[1]'],
    [{ nationalIds: [{ name: 'a', pattern: '[' }] }, 'safety.nationalIds[0].pattern'],
    [{ nationalIds: [{ name: 'a', pattern: 'a', extra: 1 }] }, 'safety.nationalIds[0].extra'],
  ])('refuses %j at %s', (patch, field) => {
    expect(fieldOf(() => validateSafetyPolicyPatch(patch))).toBe(field);
  });

  it('refuses a non-object', () => {
    expect(fieldOf(() => validateSafetyPolicyPatch(null))).toBe('safety');
    expect(fieldOf(() => validateSafetyPolicyPatch(['mask']))).toBe('safety');
  });

  it('accepts a full valid patch unchanged', () => {
    const patch = {
      enabled: true,
      actions: { secret: 'reject', phone: 'mask' },
      phoneRegion: 'GB',
      nationalIds: ['uk-nino', { name: 'emp-id', pattern: String.raw`\bE\d{6}\b`, checksum: 'none' }],
      poisoning: { action: 'reject', threshold: 1.5 },
    };
    const checked = validateSafetyPolicyPatch(patch);
    expect(checked.actions).toEqual({ secret: 'reject', phone: 'mask' });
    expect(checked.nationalIds).toEqual([
      'uk-nino',
      { name: 'emp-id', pattern: String.raw`\bE\d{6}\b`, flags: undefined, checksum: 'none' },
    ]);
    expect(resolveSafetyPolicy({ instance: checked }).poisoning).toEqual({ action: 'reject', threshold: 1.5 });
  });
});
