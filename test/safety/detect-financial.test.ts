import { describe, expect, it } from 'vitest';

import { cardBrand } from '../../src/safety/detect/detect-cards.js';
import { detectSensitive } from '../../src/safety/detect/detect-sensitive.js';
import { luhnValid } from '../../src/safety/detect/luhn.js';
import { luhnNumber } from './support/tokens.js';

function found(text: string, category: string): Array<{ kind: string; value: string; mask: string }> {
  return detectSensitive(text)
    .filter((f) => f.category === category)
    .map((f) => ({ kind: f.kind, value: text.slice(f.start, f.end), mask: f.mask }));
}

describe('Luhn', () => {
  it('accepts valid numbers and rejects a changed digit or non-digits', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('4242-4242')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });
});

describe('card numbers', () => {
  it.each([
    ['Visa', '4', 16, [4, 4, 4, 4], ' '],
    ['Mastercard', '51', 16, [4, 4, 4, 4], '-'],
    ['Mastercard', '2221', 16, [16], ''],
    ['American Express', '37', 15, [4, 6, 5], ' '],
    ['Diners Club', '36', 14, [4, 6, 4], ' '],
    ['Discover', '6011', 16, [4, 4, 4, 4], ' '],
    ['JCB', '3530', 16, [4, 4, 4, 4], '-'],
    ['UnionPay', '62', 19, [19], ''],
    ['Visa', '4', 13, [13], ''],
  ] as const)(
    'finds a %s number (%s…, %i digits) and masks it to the last four',
    (brand, prefix, length, groups, sep) => {
      const digits = luhnNumber(prefix, length, length + prefix.length);
      let at = 0;
      const written = groups.map((g) => digits.slice(at, (at += g))).join(sep);
      expect(found(`pay with ${written} please`, 'card')).toEqual([
        { kind: brand, value: written, mask: `[card ${brand} •••• ${digits.slice(-4)}]` },
      ]);
    },
  );

  it('leaves a CVV or an expiry that follows the number out of it', () => {
    const digits = luhnNumber('4', 16, 3);
    const grouped = digits.replace(/(\d{4})(?=\d)/g, '$1 ');
    expect(found(`${grouped} 123`, 'card').map((c) => c.value)).toEqual([grouped]);
    expect(found(`card: ${digits} 03/28 cvc 491`, 'card').map((c) => c.value)).toEqual([digits]);
  });

  it.each([
    ['a failed Luhn check', '4000123456789010'],
    ['an unknown brand prefix', luhnNumber('99', 16, 5)],
    ['a 15-digit IMEI (Luhn-valid, no brand of that length)', '490154203237518'],
    ['an Amazon order number', '112-4839201-5592301'],
    ['a 22-digit USPS tracking number', '9400 1000 0000 0000 0000 00'],
    ['mixed separators', luhnNumber('4', 16, 6).replace(/(\d{4})(\d{4})(\d{4})/, '$1 $2-$3 ')],
    ['a decimal', `0.${luhnNumber('4', 16, 8)}`],
  ])('does not take %s', (_what, text) => {
    expect(found(`ref ${text}`, 'card')).toEqual([]);
  });

  it('knows the brand only for its own lengths', () => {
    expect(cardBrand(luhnNumber('37', 15, 1))).toBe('American Express');
    expect(cardBrand(luhnNumber('37', 16, 1))).toBeNull();
  });
});

describe('IBANs', () => {
  it.each([
    ['DE89 3704 0044 0532 0130 00', 'DE', '3000'],
    ['GB82WEST12345698765432', 'GB', '5432'],
    ['FR76 3000 6000 0112 3456 7890 189', 'FR', '0189'],
    ['es91 2100 0418 4502 0005 1332', 'ES', '1332'],
  ])('finds %s, masked with its country and last four', (iban, country, last4) => {
    expect(found(`pay to ${iban}, thanks`, 'iban')).toEqual([
      { kind: country, value: iban, mask: `[iban ${country} •••• ${last4}]` },
    ]);
  });

  it('stops at the country length, so following words never join', () => {
    expect(found('DE89 3704 0044 0532 0130 00 IS THE ACCOUNT', 'iban').map((i) => i.value)).toEqual([
      'DE89 3704 0044 0532 0130 00',
    ]);
  });

  it('finds two IBANs in a row', () => {
    expect(found('from DE89 3704 0044 0532 0130 00 to GB82 WEST 1234 5698 7654 32', 'iban').map((i) => i.kind)).toEqual(
      ['DE', 'GB'],
    );
  });

  it.each([
    ['a wrong check digit', 'DE89 3704 0044 0532 0130 01'],
    ['a wrong length', 'GB82 WEST 1234 5698 7654 3'],
    ['an unknown country', 'XX89 3704 0044 0532 0130 00'],
    ['a BIC', 'DEUTDEFFXXX'],
  ])('rejects %s', (_what, text) => {
    expect(found(text, 'iban')).toEqual([]);
  });
});
