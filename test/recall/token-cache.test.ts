import { describe, expect, it } from 'vitest';
import { TokenCache } from '../../src/recall/token-cache.js';
import type { Tokenizer } from '../../src/text/tokenizer.js';

function counting(split: (text: string) => string[]): { tokenize: Tokenizer; calls: () => number; reset: () => void } {
  let calls = 0;
  return {
    tokenize: (text) => {
      calls += 1;
      return split(text);
    },
    calls: () => calls,
    reset: () => (calls = 0),
  };
}

describe('TokenCache', () => {
  it('tokenises once per (tokenizer, tenant, id, updatedAt) and again after an update', () => {
    const { tokenize, calls } = counting((text) => text.split(' '));
    const cache = new TokenCache(10);
    const view = cache.view('t', 'x');
    expect(view.tokens(tokenize, 'a', '2026-01-01', 'red fox')).toEqual(['red', 'fox']);
    expect(view.tokens(tokenize, 'a', '2026-01-01', 'red fox')).toEqual(['red', 'fox']);
    expect(calls()).toBe(1);
    expect(view.tokens(tokenize, 'a', '2026-02-01', 'blue fox')).toEqual(['blue', 'fox']);
    expect(cache.view('other', 'x').tokens(tokenize, 'a', '2026-02-01', 'blue fox')).toEqual(['blue', 'fox']);
    expect(calls()).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('keeps the same id of two tenants apart, even with the same updatedAt', () => {
    const { tokenize } = counting((text) => text.split(' '));
    const cache = new TokenCache(10);
    cache.view('t', 'tenant-a').tokens(tokenize, 'm1', '2026-01-01', 'secret plan');
    expect(cache.view('t', 'tenant-b').peek('m1', '2026-01-01')).toBeUndefined();
    expect(cache.view('t', 'tenant-b').tokens(tokenize, 'm1', '2026-01-01', 'other words')).toEqual(['other', 'words']);
    expect(cache.view('t', 'tenant-a').peek('m1', '2026-01-01')).toEqual(['secret', 'plan']);
  });

  it('peek answers only for the cached version', () => {
    const { tokenize } = counting((text) => text.split(' '));
    const view = new TokenCache(10).view('t', 'x');
    expect(view.peek('a', '2026-01-01')).toBeUndefined();
    view.tokens(tokenize, 'a', '2026-01-01', 'red fox');
    expect(view.peek('a', '2026-01-01')).toEqual(['red', 'fox']);
    expect(view.peek('a', '2026-01-02')).toBeUndefined();
  });

  it('drops the least recently used entries past its capacity', () => {
    const { tokenize, calls, reset } = counting((text) => [text]);
    const cache = new TokenCache(10);
    const view = cache.view('t', 'x');
    for (let i = 0; i < 10; i++) view.tokens(tokenize, `m${i}`, 'u', `m${i}`);
    view.peek('m0', 'u'); // m0 is now the most recent; m1 the least
    view.tokens(tokenize, 'm10', 'u', 'm10'); // over capacity: the least recently used go
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(view.peek('m1', 'u')).toBeUndefined();
    reset();
    view.tokens(tokenize, 'm0', 'u', 'm0');
    view.tokens(tokenize, 'm10', 'u', 'm10');
    expect(calls()).toBe(0);
  });

  it('keeps any value a view is named for, made once per memory version', () => {
    const cache = new TokenCache(10);
    const view = cache.view<{ tokens: string[] }>('profile', 'x');
    let made = 0;
    const make = () => ({ tokens: [`v${++made}`] });
    expect(view.get('a', '2026-01-01', make)).toEqual({ tokens: ['v1'] });
    expect(view.get('a', '2026-01-01', make)).toEqual({ tokens: ['v1'] });
    expect(view.peek('a', '2026-01-01')).toEqual({ tokens: ['v1'] });
    expect(view.get('a', '2026-02-01', make)).toEqual({ tokens: ['v2'] });
    expect(made).toBe(2);
    expect(cache.size).toBe(1);
  });
});
