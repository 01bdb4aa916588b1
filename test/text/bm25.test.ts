import { describe, expect, it } from 'vitest';
import { bm25Scores } from '../../src/text/bm25.js';

describe('bm25Scores', () => {
  it('matches a hand computation with k1 1.2, b 0.75 and the smoothed idf', () => {
    const docs = [['rust', 'ownership', 'rules'], ['python', 'rules'], ['rust', 'rust']];
    const { raw, normalized } = bm25Scores(['rust'], docs);
    const n = 3;
    const df = 2;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const avg = (3 + 2 + 2) / 3;
    const score = (tf: number, len: number) => (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avg));
    expect(raw[0]).toBeCloseTo(score(1, 3), 12);
    expect(raw[1]).toBe(0);
    expect(raw[2]).toBeCloseTo(score(2, 2), 12);
    expect(normalized[2]).toBe(1);
    expect(normalized[0]).toBeCloseTo(score(1, 3) / score(2, 2), 12);
  });

  it('is all zero when nothing matches, and for an empty pool', () => {
    expect([...bm25Scores(['zebra'], [['a'], ['b']]).normalized]).toEqual([0, 0]);
    expect(bm25Scores(['zebra'], []).raw.length).toBe(0);
  });

  it('counts repeated query tokens with their multiplicity', () => {
    const docs = [['x', 'y'], ['y', 'z']];
    const once = bm25Scores(['x'], docs).raw[0] as number;
    const twice = bm25Scores(['x', 'x'], docs).raw[0] as number;
    expect(twice).toBeCloseTo(2 * once, 12);
  });

  it('counts tokens of every length, also of 31 characters and more (they share one length bit)', () => {
    const long = 'a'.repeat(40);
    const longer = 'b'.repeat(52);
    const docs = [[long, 'x'], [longer, 'a'.repeat(31)], ['y', 'x', 'x'], ['', 'q']];
    const { raw } = bm25Scores([long, 'x', ''], docs);
    const ref = (doc: string[]) => doc.filter((t) => t === long || t === 'x' || t === '').length;
    docs.forEach((doc, i) => expect(raw[i] as number > 0, `doc ${i}`).toBe(ref(doc) > 0));
    // Same scores as when every token is looked up: a 31-character token is not the 40-character one.
    const [a, b] = [bm25Scores(['a'.repeat(31)], docs).raw, bm25Scores([longer], docs).raw];
    expect([...a].map((x) => x > 0)).toEqual([false, true, false, false]);
    expect([...b].map((x) => x > 0)).toEqual([false, true, false, false]);
  });
});
