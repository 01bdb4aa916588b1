import { describe, expect, it } from 'vitest';

import { MEMORY_STATUSES, MEMORY_TYPES } from '../../src/model/memory-type.js';
import { knownLiteral } from '../../src/util/known-literal.js';

describe('knownLiteral', () => {
  it('gives an equal string for every value of the set, built at run time as a driver builds them', () => {
    for (const type of MEMORY_TYPES) {
      const fromDriver = [...type].join('');
      expect(knownLiteral(fromDriver, MEMORY_TYPES)).toBe(type);
    }
    for (const status of MEMORY_STATUSES) expect(knownLiteral(` ${status}`.slice(1), MEMORY_STATUSES)).toBe(status);
  });

  it('passes a value outside the set through unchanged', () => {
    expect(knownLiteral('SomethingElse', MEMORY_TYPES)).toBe('SomethingElse');
    expect(knownLiteral('', MEMORY_STATUSES)).toBe('');
    expect(knownLiteral('activated ', MEMORY_STATUSES)).toBe('activated ');
  });
});
