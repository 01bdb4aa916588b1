import { describe, expect, it } from 'vitest';

import { compareEvals } from '../../src/eval/compare-evals.js';
import { parseEvalCases } from '../../src/eval/eval-case.js';
import type { EvalRanker, RankedMemory } from '../../src/eval/eval-ranker.js';
import { describeSetting, parseEvalSetting } from '../../src/eval/eval-setting.js';
import { formatEvalReport } from '../../src/eval/format-eval-report.js';
import { evaluate } from '../../src/eval/run-eval.js';
import { EngramError } from '../../src/model/errors.js';
import type { Scope } from '../../src/model/scope.js';

const memory = (id: string): RankedMemory => ({ id, key: `key-${id}`, text: `text of ${id}`, score: 1 });

/** Ranks a fixed list per query (a ranking under test, not a stand-in for Engram code). */
function listRanker(lists: Record<string, string[]>, perK = false): EvalRanker & { calls: Array<[string, Scope, number]> } {
  const calls: Array<[string, Scope, number]> = [];
  return {
    name: 'fixed',
    perK,
    calls,
    async rank(query, scope, limit) {
      calls.push([query, scope, limit]);
      return (lists[query] ?? []).slice(0, limit).map(memory);
    },
  };
}

const cases = parseEvalCases(
  [
    '{"query": "q1", "expected": ["a"], "category": "x"}',
    '',
    '{"query": "q2", "expected": ["key-b", "c"], "category": "y", "scope": {"user": "u2"}}',
    '{"id": "third", "query": "q3", "expected": ["z"]}',
  ].join('\n'),
  'cases.jsonl',
);

describe('evaluate', () => {
  const lists = { q1: ['a', 'b'], q2: ['x', 'c', 'y', 'b'], q3: ['p', 'q', 'r', 'z'] };

  it('scores recall@k, hit@k and MRR per case, overall and by category', async () => {
    const report = await evaluate(listRanker(lists), cases, { ks: [3, 1], scope: { tenant: 't' }, depth: 3 });
    expect(report.ks).toEqual([1, 3]);
    expect(report.cases.map((c) => [c.id, c.recall[1], c.recall[3], c.hit[3], c.reciprocalRank])).toEqual([
      ['line 1', 1, 1, 1, 1],
      ['line 3', 0, 0.5, 1, 0.5],
      ['third', 0, 0, 0, 0],
    ]);
    expect(report.overall).toMatchObject({ n: 3, recall: { 1: 1 / 3, 3: 0.5 }, hit: { 1: 1 / 3, 3: 2 / 3 }, mrr: 0.5 });
    expect(Object.keys(report.byCategory)).toEqual(['x', 'y']);
    expect(report.byCategory['y']).toMatchObject({ n: 1, recall: { 3: 0.5 } });
  });

  it('runs each case in the run scope narrowed by its own, and every k separately for a per-k ranker', async () => {
    const ranker = listRanker(lists, true);
    await evaluate(ranker, cases, { ks: [1, 3], scope: { tenant: 't', user: 'u1' }, depth: 3 });
    expect(ranker.calls.filter((c) => c[0] === 'q2').map((c) => [c[1], c[2]])).toEqual([
      [{ tenant: 't', user: 'u2' }, 1],
      [{ tenant: 't', user: 'u2' }, 3],
    ]);
    expect(ranker.calls.find((c) => c[0] === 'q1')?.[1]).toEqual({ tenant: 't', user: 'u1' });
  });

  it('reports each miss with its rank within depth and what ranked above it', async () => {
    const report = await evaluate(listRanker(lists), cases, { ks: [1, 2], scope: { tenant: 't' }, depth: 10, above: 2 });
    const q2 = report.cases[1];
    expect(q2?.misses).toEqual([{ expected: 'key-b', rank: 4, text: 'text of b', above: [memory('x'), memory('c')] }]);
    const q3 = report.cases[2];
    expect(q3?.misses[0]).toMatchObject({ expected: 'z', rank: 4 });
    const none = await evaluate(listRanker({ q3: ['p'] }), cases.slice(2), { ks: [1], scope: { tenant: 't' } });
    expect(none.cases[0]?.misses).toEqual([{ expected: 'z', rank: null, text: null, above: [memory('p')] }]);
  });

  it('compares two runs and formats them side by side', async () => {
    const a = await evaluate(listRanker(lists), cases, { ks: [1, 3], scope: { tenant: 't' } });
    const b = await evaluate(listRanker({ ...lists, q1: ['b', 'a'], q3: ['z'] }), cases, { ks: [1, 3], scope: { tenant: 't' } });
    const cmp = compareEvals(a, b);
    expect(cmp.recallDelta[1]).toBeCloseTo(0);
    expect(cmp.hitDelta[3]).toBeCloseTo(1 / 3);
    expect(cmp.onlyB).toEqual(['third']);
    expect(cmp.onlyA).toEqual([]);
    const text = formatEvalReport(cmp);
    expect(text).toMatch(/recall@3 +0\.500 +0\.833 +\+0\.333/);
    expect(text).toContain('under B only: 1 case(s) (third)');
    expect(() => compareEvals(a, { ...b, ks: [1] })).toThrow(EngramError);
  });
});

describe('parseEvalCases', () => {
  const bad = (text: string): EngramError => {
    try {
      parseEvalCases(text, 'c.jsonl');
    } catch (error) {
      expect(error).toBeInstanceOf(EngramError);
      return error as EngramError;
    }
    throw new Error('expected an EngramError');
  };
  it('names the line of every mistake with INVALID_INPUT', () => {
    expect(bad('{"query": "q", "expected": ["a"]}\n{oops').message).toMatch(/^c\.jsonl:2: not valid JSON/);
    expect(bad('{"query": "q"}').message).toMatch(/^c\.jsonl:1: expected must be a non-empty list/);
    expect(bad('{"query": "", "expected": ["a"]}').message).toMatch(/query must be a non-empty string/);
    expect(bad('{"query": "q", "expected": [3]}').message).toMatch(/expected\[0\] must be a non-empty string/);
    expect(bad('{"query": "q", "expected": ["a"], "scope": {"team": "x"}}').message).toMatch(/unknown scope field "team"/);
    expect(bad('{"query": "q", "expected": ["a"], "answer": "x"}').message).toMatch(/unknown field "answer"/);
    expect(bad('\n\n').message).toMatch(/no cases/);
    expect(bad('[1]').code).toBe('INVALID_INPUT');
  });
  it('deduplicates expected entries', () => {
    expect(parseEvalCases('{"query": "q", "expected": ["a", "a", "b"]}')[0]?.expected).toEqual(['a', 'b']);
  });
});

describe('parseEvalSetting', () => {
  it('reads key=value pairs', () => {
    expect(parseEvalSetting('')).toEqual({ mode: 'recall' });
    expect(parseEvalSetting('profile=seed, lexical=0.3,lexical-short=0.5')).toEqual({
      mode: 'recall',
      profile: 'seed',
      lexicalWeight: 0.3,
      lexicalWeightShort: 0.5,
    });
    const search = parseEvalSetting('mode=fast,reranker=cosine-local,store=b.db,embedder=openai:x,threshold=0.2');
    expect(search).toEqual({ mode: 'fast', reranker: 'cosine-local', store: 'b.db', embedder: 'openai:x', threshold: 0.2 });
    expect(describeSetting(search)).toBe('search fast (reranker cosine-local, embedder openai:x, store b.db, threshold 0.2)');
  });
  it('rejects unknown keys, bad values and knobs of the other entry point', () => {
    for (const spec of ['speed=1', 'profile=best', 'lexical=high', 'mode=slow', 'reranker=noop', 'mode=fast,profile=seed', 'store=']) {
      expect(() => parseEvalSetting(spec), spec).toThrow(EngramError);
    }
  });
});
