/**
 * Masks the guard wrote earlier are recognised (src/safety/find-masks.ts): formation masks the
 * facts an LLM proposes before consolidation, and what it writes is masked again on its way into
 * the store, where those masks must count in the report once and never be masked a second time.
 * Checked over every row of the labelled tables, every category masked.
 */
import { describe, expect, it } from 'vitest';

import { applyWriteSafety } from '../../src/safety/apply-write-safety.js';
import { findMasks } from '../../src/safety/find-masks.js';
import { resolveSafetyPolicy } from '../../src/safety/safety-policy.js';
import { sensitiveRows } from './support/safety-tables.js';

const STRICT = resolveSafetyPolicy({
  instance: { actions: { email: 'mask', phone: 'mask' }, phoneRegion: 'US', nationalIds: ['us-ssn', 'uk-nino'] },
});

describe('findMasks', () => {
  const rows = [...sensitiveRows('tuning'), ...sensitiveRows('heldout')].filter((r) => r.expect.length > 0);

  it('finds each mask the guard wrote, with its category, in every table row', () => {
    for (const row of rows) {
      const { input, report } = applyWriteSafety({ text: row.text }, STRICT);
      expect(findMasks(input.text).map((m) => m.category), row.text).toEqual(report.items.map((i) => i.category));
    }
  });

  it('counts masks already there once and masks nothing twice when asked to recognise them', () => {
    for (const row of rows) {
      const first = applyWriteSafety({ text: row.text }, STRICT);
      const again = applyWriteSafety({ text: first.input.text }, STRICT, { recogniseMasks: true });
      expect(again.input.text, row.text).toBe(first.input.text);
      expect(again.report.masked, row.text).toEqual(first.report.masked);
    }
  });

  it('reads what a mask shows as the kind', () => {
    expect(findMasks('[card Visa •••• 4242] and [iban DE •••• 3000], [secret:openai], [id:us-ssn]')).toEqual([
      { category: 'card', kind: 'Visa', start: 0, end: 21 },
      { category: 'iban', kind: 'DE', start: 26, end: 45 },
      { category: 'secret', kind: 'openai', start: 47, end: 62 },
      { category: 'nationalId', kind: 'us-ssn', start: 64, end: 75 },
    ]);
    expect(findMasks('a [phone +44 •••• 0958] or [email •••@example.org]').map((m) => m.kind)).toEqual(['+44', 'email']);
    expect(findMasks('no [masks] here [card] [secret:]')).toEqual([]);
  });
});
