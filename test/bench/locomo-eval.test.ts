import { describe, expect, it } from 'vitest';

import { locomoCases, sessionOf, sessionRecall } from '../../bench/lib/locomo-eval.js';
import { cutScores, summarize } from '../../src/eval/eval-metrics.js';
import type { RankedMemory } from '../../src/eval/eval-ranker.js';
import { exactTopK } from '../../bench/lib/exact-scan.js';
import { buildCorpus, normalize } from '../../bench/lib/synthetic-corpus.js';
import { questionsBySample } from '../../bench/lib/locomo-questions.js';
import { parseLocomo } from '../../src/import/locomo.js';

const memories = (ids: string[]): RankedMemory[] => ids.map((id) => ({ id: `m-${id}`, key: id, text: id, score: 0 }));

describe('cut scores and session recall', () => {
  it('computes turn recall, hit and session recall at k', () => {
    const ranked = memories(['D1:1', 'D2:5', 'D3:1', 'D1:2']);
    const at = (gold: string[], k: number) => ({
      ...cutScores(gold, ranked, k),
      sessionRecall: sessionRecall(gold, ranked.slice(0, k)),
    });
    expect(at(['D1:2', 'D3:1'], 3)).toEqual({ recall: 0.5, hit: 1, sessionRecall: 1 });
    expect(at(['D1:2', 'D3:1'], 1)).toEqual({ recall: 0, hit: 0, sessionRecall: 0.5 });
    expect(at(['D9:9'], 4)).toEqual({ recall: 0, hit: 0, sessionRecall: 0 });
  });
  it('reads the session of a dia_id', () => {
    expect(sessionOf('D12:3')).toBe(12);
    expect(Number.isNaN(sessionOf('x'))).toBe(true);
  });
});

describe('summarize', () => {
  it('averages over cases (and per category when given only those)', () => {
    const one = { recall: { 5: 1 }, hit: { 5: 1 }, reciprocalRank: 1, extra: { sessionRecall: { 5: 1 } } };
    const two = { recall: { 5: 0 }, hit: { 5: 0 }, reciprocalRank: 0, extra: { sessionRecall: { 5: 0.5 } } };
    expect(summarize([one], [5], ['sessionRecall'])).toEqual({
      n: 1,
      recall: { 5: 1 },
      hit: { 5: 1 },
      mrr: 1,
      extra: { sessionRecall: { 5: 1 } },
    });
    expect(summarize([one, two], [5], ['sessionRecall'])).toEqual({
      n: 2,
      recall: { 5: 0.5 },
      hit: { 5: 0.5 },
      mrr: 0.5,
      extra: { sessionRecall: { 5: 0.75 } },
    });
    expect(summarize([], [5], []).n).toBe(0);
  });
});

describe('locomoCases', () => {
  it('keeps categories 1–4 whose evidence names a real turn', () => {
    const data = [
      {
        sample_id: 's',
        conversation: {
          speaker_a: 'A',
          speaker_b: 'B',
          session_1: [
            { speaker: 'A', dia_id: 'D1:1', text: 'x' },
            { speaker: 'B', dia_id: 'D1:2', text: 'y' },
          ],
        },
        qa: [
          { question: 'q1', answer: 'a', evidence: ['D1:1', 'D7:7'], category: 1 },
          { question: 'q2', answer: 'a', evidence: ['D7:7'], category: 4 },
          { question: 'q3', adversarial_answer: 'a', evidence: ['D1:2'], category: 5 },
          { question: 'q4', answer: 'a', evidence: [], category: 2 },
        ],
      },
    ];
    const [conv] = parseLocomo(data);
    const qs = locomoCases({ ...conv!, questions: questionsBySample(data).get('s') ?? [] });
    expect(qs.map((q) => [q.query, q.expected])).toEqual([['q1', ['D1:1']]]);
    expect(qs[0]).toMatchObject({ id: 's#0', scope: { user: 's' }, category: 'multi-hop' });
  });
});

describe('speed bench helpers', () => {
  it('exactTopK returns the k best rows by dot product, best first', () => {
    const dim = 2;
    const matrix = new Float32Array([1, 0, 0, 1, 0.6, 0.8, -1, 0]);
    const top = exactTopK(matrix, dim, new Float32Array([0, 1]), 2);
    expect(top.map((t) => t.index)).toEqual([1, 2]);
    expect(top[1]?.score).toBeCloseTo(0.8);
  });

  it('buildCorpus keeps real items first and makes unit-length perturbed copies', () => {
    const base = [
      { text: 'A: hello there', vector: normalize(new Float32Array([1, 2, 3, 4])) },
      { text: 'B: bye', vector: normalize(new Float32Array([4, 3, 2, 1])) },
    ];
    const corpus = buildCorpus(base, 6, { seed: 1 });
    expect(corpus.texts.slice(0, 2)).toEqual(['A: hello there', 'B: bye']);
    expect(corpus.texts[2]).toMatch(/^\w+: hello there/);
    expect(corpus.texts[2]).not.toBe('A: hello there');
    const r = corpus.row(2);
    expect(Math.hypot(...r)).toBeCloseTo(1, 5);
    expect(Array.from(r)).not.toEqual(Array.from(base[0]!.vector));
    expect(buildCorpus(base, 6, { seed: 1 }).matrix).toEqual(corpus.matrix);
  });
});

describe('buildCorpus texts', () => {
  it('never repeats a copy text, even for a tiny base', () => {
    const base = [{ text: 'A: hi', vector: normalize(new Float32Array([1, 0])) }];
    const corpus = buildCorpus(base, 500);
    expect(new Set(corpus.texts).size).toBe(500);
  });
});
