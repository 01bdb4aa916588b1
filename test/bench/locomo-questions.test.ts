import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import {
  defaultLocomoData,
  goldTurnIds,
  questionsBySample,
  readLocomoBench,
} from '../../bench/lib/locomo-questions.js';
import { EngramError } from '../../src/model/errors.js';

const FIXTURE = fileURLToPath(new URL('../import/fixtures/mini-locomo.json', import.meta.url));
const DEV = defaultLocomoData();

function errorOf(fn: () => unknown): EngramError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(EngramError);
    return error as EngramError;
  }
  throw new Error('expected an EngramError');
}

describe('LoCoMo questions (bench side)', () => {
  it('reads QA items: numeric answers as strings, split evidence, gold ids limited to real turns', async () => {
    const [conv] = await readLocomoBench(FIXTURE);
    const [q1, q2, q3] = conv?.questions ?? [];
    expect(q1).toMatchObject({ question: 'What pet did Ana adopt?', answer: 'a cat', category: 4, evidence: ['D1:1'] });
    expect(q2?.answer).toBe('2023');
    expect(q2?.evidence).toEqual(['D2:1', 'D1:1']);
    expect(q2?.rawEvidence).toEqual(['D2:1; D1:1']);
    expect(q3).toMatchObject({ answer: null, adversarialAnswer: 'a cat', category: 5 });
    const ids = new Set(conv?.turns.map((t) => t.diaId));
    expect(goldTurnIds(q2!, ids)).toEqual(['D2:1', 'D1:1']);
    expect(goldTurnIds(q3!, ids)).toEqual([]);
  });

  const sample = (qa: unknown): unknown[] => [
    { sample_id: 's1', conversation: { speaker_a: 'A', speaker_b: 'B', session_1: [] }, qa },
  ];
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'bad category',
      [{ question: 'q?', answer: 'a', evidence: [], category: 9 }],
      /^\[0\]\.qa\[0\]\.category: expected 1, 2, 3, 4 or 5, got number 9/,
    ],
    [
      'evidence not strings',
      [{ question: 'q?', answer: 'a', evidence: [1], category: 1 }],
      /^\[0\]\.qa\[0\]\.evidence\[0\]: expected a string/,
    ],
  ];
  for (const [name, qa, pattern] of cases) {
    it(`names the bad field: ${name}`, () => {
      const error = errorOf(() => questionsBySample(sample(qa)));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toMatch(pattern);
    });
  }
});

describe.skipIf(!existsSync(DEV))('locomo-dev.json questions', () => {
  it('has 999 questions, 760 scorable', async () => {
    const convs = await readLocomoBench(DEV);
    expect(convs.reduce((n, c) => n + c.questions.length, 0)).toBe(999);
    let scorable = 0;
    for (const c of convs) {
      const ids = new Set(c.turns.map((t) => t.diaId));
      scorable += c.questions.filter((q) => q.category <= 4 && goldTurnIds(q, ids).length > 0).length;
    }
    expect(scorable).toBe(760);
  });
});
