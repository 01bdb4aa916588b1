import { describe, expect, it } from 'vitest';
import { TokenCache } from '../../src/recall/token-cache.js';
import type { Tokenizer } from '../../src/text/tokenizer.js';

describe('TokenCache', () => {
  it('tokenises once per (tokenizer, id, updatedAt) and again after an update', () => {
    let calls = 0;
    const tokenize: Tokenizer = (text) => {
      calls += 1;
      return text.split(' ');
    };
    const cache = new TokenCache(10);
    expect(cache.tokens(tokenize, 't', 'a', '2026-01-01', 'red fox')).toEqual(['red', 'fox']);
    expect(cache.tokens(tokenize, 't', 'a', '2026-01-01', 'red fox')).toEqual(['red', 'fox']);
    expect(calls).toBe(1);
    expect(cache.tokens(tokenize, 't', 'a', '2026-02-01', 'blue fox')).toEqual(['blue', 'fox']);
    expect(cache.tokens(tokenize, 'other', 'a', '2026-02-01', 'blue fox')).toEqual(['blue', 'fox']);
    expect(calls).toBe(3);
  });

  it('drops the least recently used entry past its capacity', () => {
    let calls = 0;
    const tokenize: Tokenizer = (text) => {
      calls += 1;
      return [text];
    };
    const cache = new TokenCache(2);
    cache.tokens(tokenize, 't', 'a', 'u', 'a');
    cache.tokens(tokenize, 't', 'b', 'u', 'b');
    cache.tokens(tokenize, 't', 'a', 'u', 'a'); // a is now the most recent
    cache.tokens(tokenize, 't', 'c', 'u', 'c'); // evicts b
    expect(cache.size).toBe(2);
    calls = 0;
    cache.tokens(tokenize, 't', 'a', 'u', 'a');
    expect(calls).toBe(0);
    cache.tokens(tokenize, 't', 'b', 'u', 'b');
    expect(calls).toBe(1);
  });
});
