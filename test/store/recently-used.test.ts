import { describe, expect, it } from 'vitest';
import { RecentlyUsed } from '../../src/store/sqlite/recently-used.js';

describe('RecentlyUsed', () => {
  it('keeps a value while fresh, remakes a stale one, and drops the least recently used past its bound', () => {
    const memory = new RecentlyUsed<{ v: number }>(2);
    let made = 0;
    const make = (v: number) => () => (made++, { v });
    const a = memory.take('a', make(1));
    expect(memory.take('a', make(2))).toBe(a);
    expect(made).toBe(1);
    expect(memory.take('a', make(3), (x) => x.v === 9)).toEqual({ v: 3 });
    memory.take('b', make(4));
    memory.take('a', make(5)); // a is now the most recently used
    memory.take('c', make(6)); // b goes
    expect([...memory.values()].map((x) => x.v)).toEqual([3, 6]);
    expect(memory.take('b', make(7))).toEqual({ v: 7 });
    expect(memory.size).toBe(2);
  });
});
