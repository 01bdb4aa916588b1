import { describe, expect, it } from 'vitest';
import {
  candidatePoolSize,
  lexicalWeightFor,
  resolveLexicalWeights,
} from '../../src/recall/index.js';
import { cosine } from '../../src/vector/cosine.js';
import { topK } from '../../src/vector/top-k.js';

describe('candidatePoolSize', () => {
  it('follows max(limit, min(rows, max(limit*10, 50)))', () => {
    expect(candidatePoolSize(5, 10_000, true)).toBe(50);
    expect(candidatePoolSize(10, 10_000, true)).toBe(100);
    expect(candidatePoolSize(5, 30, true)).toBe(30);
    expect(candidatePoolSize(5, 3, true)).toBe(5);
    expect(candidatePoolSize(200, 100, true)).toBe(200);
  });
  it('is the limit without query text', () => {
    expect(candidatePoolSize(5, 10_000, false)).toBe(5);
  });
});

describe('lexical weights', () => {
  it('defaults to 0.15 and 0.30 for short queries', () => {
    const w = resolveLexicalWeights();
    expect(w).toEqual({ base: 0.15, short: 0.3 });
    expect(lexicalWeightFor(2, w)).toBe(0.3);
    expect(lexicalWeightFor(3, w)).toBe(0.15);
    expect(lexicalWeightFor(0, w)).toBe(0.3);
  });
  it('reads the environment and clamps to [0.05, 0.40]', () => {
    expect(resolveLexicalWeights({ env: { ENGRAM_RECALL_LEX_WEIGHT: '0.9', ENGRAM_RECALL_LEX_WEIGHT_SHORT: '0.01' } })).toEqual({
      base: 0.4,
      short: 0.05,
    });
    expect(resolveLexicalWeights({ env: { ENGRAM_RECALL_LEX_WEIGHT: 'abc' } }).base).toBe(0.15);
  });
  it('takes a profile’s own defaults and ceiling', () => {
    const engram = { defaults: { base: 0.5, short: 0.5 }, max: 0.95 };
    expect(resolveLexicalWeights({}, engram)).toEqual({ base: 0.5, short: 0.5 });
    expect(resolveLexicalWeights({ env: { ENGRAM_RECALL_LEX_WEIGHT: '0.9' } }, engram).base).toBe(0.9);
    expect(resolveLexicalWeights({ option: { base: 2 } }, engram).base).toBe(0.95);
    expect(resolveLexicalWeights({ option: { short: 0 } }, engram).short).toBe(0.05);
  });

  it('prefers option over config over environment', () => {
    const env = { ENGRAM_RECALL_LEX_WEIGHT: '0.2', ENGRAM_RECALL_LEX_WEIGHT_SHORT: '0.2' };
    expect(resolveLexicalWeights({ env, config: { base: 0.25 } })).toEqual({ base: 0.25, short: 0.2 });
    expect(resolveLexicalWeights({ env, config: { base: 0.25 }, option: { base: 0.35 } }).base).toBe(0.35);
  });
});

describe('cosine', () => {
  it('is 0 for mismatched lengths, zero vectors and never NaN', () => {
    expect(cosine([1, 2], [1, 2, 3])).toBe(0);
    expect(cosine([0, 0], [1, 1])).toBe(0);
    expect(cosine([Number.NaN, 1], [1, 1])).toBe(0);
    expect(cosine([1, 0], [1, 0])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [-1, 0])).toBeCloseTo(-1, 12);
  });
});

describe('topK', () => {
  it('equals a full sort truncated, for random input with ties', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const items = Array.from({ length: 500 }, (_, i) => ({ id: `m${i}`, score: Math.round(rand() * 20) / 20 }));
    const compare = (a: { id: string; score: number }, b: { id: string; score: number }) =>
      b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    for (const k of [0, 1, 5, 50, 499, 500, 600]) {
      expect(topK(items, k, compare)).toEqual([...items].sort(compare).slice(0, k));
    }
  });
});
