import { describe, expect, it } from 'vitest';

import { isEngramError } from '../../src/model/errors.js';
import { detectSensitive } from '../../src/safety/detect/detect-sensitive.js';
import { compileNationalId, detectNationalIds } from '../../src/safety/detect/national-ids.js';

function values(text: string, category: string, options = {}): string[] {
  return detectSensitive(text, options)
    .filter((f) => f.category === category)
    .map((f) => text.slice(f.start, f.end));
}

describe('e-mail addresses', () => {
  it.each([
    ['write to maria.gonzalez@gmail.com.', 'maria.gonzalez@gmail.com'],
    ['j.smith+invoices@acme-corp.co.uk', 'j.smith+invoices@acme-corp.co.uk'],
    ['Contact: <devops@mail.example.org>', 'devops@mail.example.org'],
    ['mailto:support@shop.io', 'support@shop.io'],
    ['user=jenny@fastmail.fm;role=admin', 'jenny@fastmail.fm'],
  ])('%j → %j', (text, address) => {
    expect(values(text, 'email')).toEqual([address]);
  });

  it.each(['follow @maria_g', 'lodash@4.17.21', '@types/node', 'user@localhost', 'https://user@example.com/path'])(
    'passes %j',
    (text) => {
      expect(values(text, 'email')).toEqual([]);
    },
  );

  it('masks to the domain', () => {
    expect(detectSensitive('a.b@Example.ORG')[0]?.mask).toBe('[email •••@example.org]');
  });
});

describe('phone numbers', () => {
  it.each([
    ['Call me at +44 20 7946 0958 after six', '+44 20 7946 0958'],
    ['my cell is +1 (415) 555-2671', '+1 (415) 555-2671'],
    ['Paris office +33 1 42 68 53 00', '+33 1 42 68 53 00'],
    ['tel:+14155552671', '+14155552671'],
  ])('finds %j', (text, phone) => {
    expect(values(text, 'phone')).toEqual([phone]);
  });

  it('reads 00 as the international prefix and keeps the offsets of the original text', () => {
    const text = 'text me on 0044 7911 123456 tonight';
    const [f] = detectSensitive(text).filter((x) => x.category === 'phone');
    expect(text.slice(f?.start, f?.end)).toBe('0044 7911 123456');
    expect(f?.mask).toBe('[phone +44 •••• 3456]');
  });

  it('accepts a national number grouped as its country writes it, with or without a trunk prefix', () => {
    for (const phone of ['415.555.2671', '1-800-275-2273', '4155552671']) {
      expect(values(`call ${phone}`, 'phone', { phoneRegion: 'US' })).toEqual([phone]);
    }
  });

  it('finds an international number after a long run of other digits', () => {
    const table = `${'12 '.repeat(200)}+44 20 7946 0958`;
    expect(values(table, 'phone')).toEqual(['+44 20 7946 0958']);
  });

  it('finds national formats only with a region', () => {
    expect(values('my number is (212) 736-5000', 'phone')).toEqual([]);
    expect(values('my number is (212) 736-5000', 'phone', { phoneRegion: 'US' })).toEqual(['(212) 736-5000']);
  });

  it.each([
    'ISBN 978-3-16-148410-0',
    'v1.24.3 on 2023-05-12 10:30',
    'the number 12345678',
    'routing 021000021',
    '+44 7700 900123',
    'order 617-5994929-0082387',
    'part 1121-3839-0872',
    'part 0053-7288-0823',
  ])('passes %j (even with region US)', (text) => {
    expect(values(text, 'phone', { phoneRegion: 'US' })).toEqual([]);
  });
});

describe('national ids', () => {
  const ssn = [compileNationalId('us-ssn', 'x')];

  it('finds US SSNs written with dashes or spaces, not never-issued ones', () => {
    const hits = (t: string): string[] => detectNationalIds(t, ssn).map((f) => t.slice(f.start, f.end));
    expect(hits('SSN 219-09-9999 and 078 05 1120')).toEqual(['219-09-9999', '078 05 1120']);
    expect(hits('666-12-3456 000-12-3456 912-12-3456 123-00-4567 123-45-0000 123-45 6789')).toEqual([]);
  });

  it('finds UK NINOs but not unused prefixes', () => {
    const nino = [compileNationalId('uk-nino', 'x')];
    const hits = (t: string): string[] => detectNationalIds(t, nino).map((f) => t.slice(f.start, f.end));
    expect(hits('NI AB123456D, JG 10 37 82 A')).toEqual(['AB123456D', 'JG 10 37 82 A']);
    expect(hits('QQ 12 34 56 C, GB123456A, AB123456E')).toEqual([]);
  });

  it('runs custom rules with a Luhn checksum', () => {
    const rule = compileNationalId(
      { name: 'ca-sin-custom', pattern: String.raw`\b\d{3}-\d{3}-\d{3}\b`, checksum: 'luhn' },
      'x',
    );
    expect(detectNationalIds('SIN 046-454-286, not 046-454-287', [rule]).map((f) => f.mask)).toEqual([
      '[id:ca-sin-custom]',
    ]);
  });

  it('refuses a bad rule with INVALID_INPUT naming the field', () => {
    for (const [spec, field] of [
      ['no-such-preset', 'ids[0]'],
      [{ name: 'x', pattern: '(' }, 'ids[0].pattern'],
      [{ name: 'bad name!', pattern: 'a' }, 'ids[0].name'],
      [{ name: 'x', pattern: 'a', flags: 'y' }, 'ids[0].flags'],
    ] as const) {
      let error: unknown;
      try {
        compileNationalId(spec, 'ids[0]');
      } catch (e) {
        error = e;
      }
      expect(isEngramError(error, 'INVALID_INPUT')).toBe(true);
      expect((error as { details: { field: string } }).details.field).toBe(field);
    }
  });
});
