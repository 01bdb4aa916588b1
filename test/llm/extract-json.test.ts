import { describe, expect, it } from 'vitest';
import { extractJson, extractJsonObject } from '../../src/llm/extract-json.js';
import { isEngramError } from '../../src/model/errors.js';

describe('extractJson', () => {
  it('parses a bare object', () => {
    expect(extractJson('{"a":1}')).toEqual({ a: 1 });
  });

  it('takes the fenced block even with prose before and after', () => {
    const text = 'Sure! Here is the plan:\n```json\n{"keys": ["x"], "n": 2}\n```\nLet me know {if} you need more.';
    expect(extractJson(text)).toEqual({ keys: ['x'], n: 2 });
  });

  it('handles a fence without a language tag', () => {
    expect(extractJson('```\n{"ok": true}\n```')).toEqual({ ok: true });
  });

  it('finds an object after leading prose and ignores trailing text', () => {
    expect(extractJson('The answer is {"selected_ids": ["a"]} — hope that helps!')).toEqual({ selected_ids: ['a'] });
  });

  it('respects braces and escaped quotes inside strings', () => {
    expect(extractJson('x {"t": "a } \\" { b", "u": [1, {"v": 2}]} y')).toEqual({ t: 'a } " { b', u: [1, { v: 2 }] });
  });

  it('skips an unbalanced or invalid candidate and finds the next one', () => {
    expect(extractJson('{not json} then {"ok": 1}')).toEqual({ ok: 1 });
  });

  it('throws LLM_ERROR when there is no JSON', () => {
    let caught: unknown;
    try {
      extractJson('I cannot help with that.');
    } catch (error) {
      caught = error;
    }
    expect(isEngramError(caught, 'LLM_ERROR')).toBe(true);
  });

  it('extractJsonObject rejects arrays', () => {
    expect(() => extractJsonObject('[1,2]')).toThrow(/not an object/);
  });
});
