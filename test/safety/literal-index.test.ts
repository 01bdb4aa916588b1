import { describe, expect, it } from 'vitest';

import { mulberry32 } from '../../bench/lib/synthetic-corpus.js';
import { LiteralIndex } from '../../src/safety/literal-index.js';

const found = (index: LiteralIndex, text: string): number[] => {
  const hits = index.find(text);
  return hits === null ? [] : [...hits.keys()].filter((i) => hits[i] === 1);
};

describe('LiteralIndex', () => {
  const index = new LiteralIndex(5, [
    ['overrid', 0, true],
    ['override', 1, true],
    ['sk-', 2],
    ['<|', 3, true],
    ['key', 4],
  ]);

  it('finds every literal, in any case, counting both of a prefix pair', () => {
    expect(found(index, 'OVERRIDE this')).toEqual([0, 1]);
    expect(found(index, 'the Overriding vote')).toEqual([0]);
    expect(found(index, 'a <|im_start|> token')).toEqual([3]);
  });

  it('holds word-start literals to word starts, the others to nothing', () => {
    expect(found(index, 'no-override here')).toEqual([0, 1]);
    expect(found(index, 'xoverride')).toEqual([]);
    expect(found(index, 'api_key and task-sk-1')).toEqual([2, 4]);
  });

  it('returns null when nothing occurs', () => {
    expect(index.find('Caroline went to the support group.')).toBeNull();
  });

  it('refuses an empty literal or a value out of range', () => {
    expect(() => new LiteralIndex(1, [['', 0]])).toThrow(RangeError);
    expect(() => new LiteralIndex(1, [['a', 1]])).toThrow(RangeError);
  });

  it('agrees with a plain search on random text (the trie expression is exact)', () => {
    const literals = ['ab', 'abc', 'b-c', 'ca', '(x', 'x)', 'bb', 'c.'];
    const idx = new LiteralIndex(
      literals.length,
      literals.map((l, i) => [l, i] as const),
    );
    const r = mulberry32(99);
    for (let n = 0; n < 500; n++) {
      let text = '';
      for (let i = 0; i < 24; i++) text += 'abcABC-.()x '[Math.floor(r() * 12)];
      const lower = text.toLowerCase();
      expect(found(idx, text), text).toEqual(literals.flatMap((l, i) => (lower.includes(l) ? [i] : [])));
    }
  });

  it('agrees with a plain search for word-start and anywhere literals mixed, prefixes included', () => {
    const literals: Array<[string, boolean]> = [
      ['ab', true],
      ['abc', true],
      ['abca', true],
      ['b-c', true],
      ['ca', false],
      ['bc', true],
      ['(x', true],
      ['x)', false],
      ['c.', true],
      // Anywhere literals that extend word-start ones.
      ['abcx', false],
      ['b-c.', false],
    ];
    const idx = new LiteralIndex(
      literals.length,
      literals.map(([l, w], i) => [l, i, w] as const),
    );
    const isWord = (ch: string | undefined): boolean => ch !== undefined && /[a-z0-9_]/.test(ch);
    const r = mulberry32(7);
    for (let n = 0; n < 1000; n++) {
      let text = '';
      for (let i = 0; i < 24; i++) text += 'abcABC-.()x _'[Math.floor(r() * 13)];
      const lower = text.toLowerCase();
      const expected = literals.flatMap(([l, wordStart], i) => {
        for (let at = lower.indexOf(l); at !== -1; at = lower.indexOf(l, at + 1)) {
          if (!wordStart || !/[a-z0-9_]/.test(l[0] as string) || !isWord(lower[at - 1])) return [i];
        }
        return [];
      });
      expect(found(idx, text), text).toEqual(expected);
    }
  });
});
