import { describe, expect, it } from 'vitest';
import { bm25Scores } from '../../src/text/bm25.js';
import { dateWords } from '../../src/text/date-words.js';

describe('bm25Scores with a context field (BM25F)', () => {
  const docs = [
    ['reply', 'yes'],
    ['walrus', 'swims'],
    ['other', 'words'],
  ];

  it('gives the reference scores exactly when the context is empty', () => {
    const plain = bm25Scores(['walrus'], docs);
    const empty = bm25Scores(['walrus'], docs, undefined, { tokens: [[], [], []], weight: 0.5 });
    expect([...empty.raw]).toEqual([...plain.raw]);
  });

  it('matches through the context at its weight, in term frequency and in length', () => {
    const ctx = { tokens: [['walrus', 'question'], [], []], weight: 0.5 };
    const { raw } = bm25Scores(['walrus'], docs, undefined, ctx);
    // Hand computation: tf(doc0) = 0.5, lengths 2 + 0.5·2 = 3, 2, 2; df(walrus) = 2 of 3.
    const n = 3;
    const idf = Math.log(1 + (n - 2 + 0.5) / (2 + 0.5));
    const avg = (3 + 2 + 2) / 3;
    const score = (tf: number, len: number) => (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avg));
    expect(raw[0]).toBeCloseTo(score(0.5, 3), 12);
    expect(raw[1]).toBeCloseTo(score(1, 2), 12);
    // The word in the memory's own text outranks the same word in another memory's context.
    expect(raw[1] as number).toBeGreaterThan(raw[0] as number);
    expect(raw[2]).toBe(0);
  });
});

describe('dateWords', () => {
  it('writes the UTC day as a query would name it', () => {
    expect(dateWords('2023-05-08T13:56:00.000Z')).toBe('8 May 2023');
    expect(dateWords('2023-12-31T23:59:00-02:00')).toBe('1 January 2024');
    expect(dateWords(null)).toBe('');
    expect(dateWords('not a date')).toBe('');
  });
});
