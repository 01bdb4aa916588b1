import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { parseLocomo, parseLocomoDateTime, readLocomoFile } from '../../src/import/locomo.js';
import { EngramError } from '../../src/model/errors.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/mini-locomo.json', import.meta.url));
// The shared data folder sits beside the repository (CI) or at /work/shared.
const DEV =
  [
    fileURLToPath(new URL('../../../shared/data/locomo-dev.json', import.meta.url)),
    '/work/shared/data/locomo-dev.json',
  ].find((path) => existsSync(path)) ?? 'locomo-dev.json (not found)';

/** Runs fn and returns the EngramError it throws (fails the test when it does not throw one). */
function errorOf(fn: () => unknown): EngramError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(EngramError);
    return error as EngramError;
  }
  throw new Error('expected an EngramError');
}

function sample(): Record<string, unknown> {
  return {
    sample_id: 's1',
    conversation: {
      speaker_a: 'A',
      speaker_b: 'B',
      session_1_date_time: '10:37 am on 27 June, 2023',
      session_1: [{ speaker: 'A', dia_id: 'D1:1', text: 'hello' }],
    },
    qa: [],
  };
}

describe('parseLocomoDateTime', () => {
  it('parses the LoCoMo shape as UTC', () => {
    expect(parseLocomoDateTime('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00.000Z');
    expect(parseLocomoDateTime('10:37 am on 27 June, 2023')).toBe('2023-06-27T10:37:00.000Z');
  });
  it('handles 12 am / 12 pm', () => {
    expect(parseLocomoDateTime('12:09 am on 13 September, 2023')).toBe('2023-09-13T00:09:00.000Z');
    expect(parseLocomoDateTime('12:30 pm on 1 Jan, 2024')).toBe('2024-01-01T12:30:00.000Z');
  });
  it('rejects other shapes and impossible dates', () => {
    expect(parseLocomoDateTime('8 May 2023')).toBeNull();
    expect(parseLocomoDateTime('1:56 pm on 31 February, 2023')).toBeNull();
    expect(parseLocomoDateTime('13:56 pm on 8 May, 2023')).toBeNull();
    expect(parseLocomoDateTime('1:56 pm on 8 Smarch, 2023')).toBeNull();
  });
});

describe('parseLocomo on a fixture', () => {
  it('turns every turn into one memory with text, key, source, metadata and statedAt', async () => {
    const [conv] = await readLocomoFile(FIXTURE);
    expect(conv?.sampleId).toBe('conv-x');
    expect(conv?.turns.map((t) => t.diaId)).toEqual(['D1:1', 'D1:2', 'D2:1']);
    expect(conv?.memories[0]).toEqual({
      text: 'Ana: Hi Bo! I adopted a cat.',
      key: 'D1:1',
      sources: [{ type: 'chat', id: 'D1:1', role: 'Ana', content: 'Hi Bo! I adopted a cat.' }],
      metadata: { sampleId: 'conv-x', diaId: 'D1:1', session: 1, speaker: 'Ana' },
      statedAt: '2023-05-08T13:56:00.000Z',
    });
    expect(conv?.memories[1]?.text).toBe('Bo: Look at this! (shares a photo: a photo of a red kite)');
    // A reply carries the turn it answers as its background; a session's first turn has none.
    expect(conv?.memories[1]?.background).toBe('Ana: Hi Bo! I adopted a cat.');
    expect(conv?.memories[2]?.background).toBeUndefined();
    expect(conv?.memories[1]?.sources?.[0]?.content).toBe('Look at this!');
    expect(conv?.memories[2]?.statedAt).toBe('2023-09-13T00:09:00.000Z');
  });

  it('keeps sessions in numeric order and ignores a date with no turns', async () => {
    const [conv] = await readLocomoFile(FIXTURE);
    expect(conv?.sessions.map((s) => [s.session, s.turnCount])).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it('turns observations into LongTermMemory facts sourced from their turns', async () => {
    const [conv] = await readLocomoFile(FIXTURE);
    expect(conv?.observations.map((o) => o.text)).toEqual([
      'Ana adopted a cat.',
      'Bo flies kites.',
      "Ana's cat is called Miso.",
    ]);
    const kite = conv?.observations[1];
    expect(kite?.type).toBe('LongTermMemory');
    expect(kite?.level).toBe('fact');
    expect(kite?.sources).toEqual([
      { type: 'chat', id: 'D1:2', role: 'Bo', content: 'Look at this!' },
      { type: 'chat', id: 'D1:1', role: 'Ana', content: 'Hi Bo! I adopted a cat.' },
    ]);
    expect(conv?.observations[2]?.statedAt).toBe('2023-09-13T00:09:00.000Z');
  });

  it('ignores the questions (evaluation data, read by the benches)', async () => {
    const [conv] = await readLocomoFile(FIXTURE);
    expect(conv).not.toHaveProperty('questions');
    const s = sample();
    s['qa'] = [{ question: 'q?', answer: 'a', evidence: [], category: 9 }];
    expect(parseLocomo([s])).toHaveLength(1);
  });

  it('can keep only some samples and reports unknown ones', () => {
    expect(parseLocomo([sample()], { samples: ['s1'] })).toHaveLength(1);
    expect(errorOf(() => parseLocomo([sample()], { samples: ['nope'] })).message).toMatch(/nope/);
  });
});

describe('parseLocomo validation names the bad field', () => {
  const cases: Array<[string, (s: Record<string, unknown>) => void, RegExp]> = [
    ['missing sample_id', (s) => delete s['sample_id'], /^\[0\]\.sample_id: expected a string, got undefined/],
    [
      'conversation not an object',
      (s) => (s['conversation'] = []),
      /^\[0\]\.conversation: expected an object, got an array/,
    ],
    [
      'turn text not a string',
      (s) => ((s['conversation'] as { session_1: Array<Record<string, unknown>> }).session_1[0]!['text'] = 7),
      /^\[0\]\.conversation\.session_1\[0\]\.text: expected a string, got number 7/,
    ],
    [
      'unparseable date',
      (s) => ((s['conversation'] as Record<string, unknown>)['session_1_date_time'] = 'yesterday'),
      /^\[0\]\.conversation\.session_1_date_time: cannot parse "yesterday"/,
    ],
    [
      'duplicate dia_id',
      (s) =>
        (s['conversation'] as { session_1: unknown[] }).session_1.push({ speaker: 'B', dia_id: 'D1:1', text: 'again' }),
      /^\[0\]\.conversation\.session_1\[1\]\.dia_id: duplicate dia_id "D1:1"/,
    ],
    [
      'misspelt session key',
      (s) => ((s['conversation'] as Record<string, unknown>)['sesion_2'] = []),
      /^\[0\]\.conversation\.sesion_2: unknown field/,
    ],
    [
      'observation without a dia_id',
      (s) => (s['observation'] = { session_1_observation: { A: [['a fact']] } }),
      /^\[0\]\.observation\.session_1_observation\.A\[0\]: expected \[fact, dia_id\]/,
    ],
  ];
  for (const [name, mutate, pattern] of cases) {
    it(name, () => {
      const s = sample();
      mutate(s);
      const error = errorOf(() => parseLocomo([s]));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toMatch(pattern);
    });
  }

  it('rejects a non-list top level', () => {
    expect(errorOf(() => parseLocomo('x')).message).toMatch(/^\$: expected a list of LoCoMo samples/);
  });

  it('names the file for unreadable or invalid JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-locomo-'));
    const file = join(dir, 'bad.json');
    await writeFile(file, '[{"sample_id": ');
    await expect(readLocomoFile(file)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('bad.json is not valid JSON'),
    });
    await expect(readLocomoFile(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe.skipIf(!existsSync(DEV))('locomo-dev.json sanity', () => {
  it('has 5 conversations and 2,760 turns, one memory each, every one dated', async () => {
    const convs = await readLocomoFile(DEV);
    expect(convs.map((c) => c.sampleId)).toEqual(['conv-26', 'conv-30', 'conv-41', 'conv-42', 'conv-43']);
    expect(convs.reduce((n, c) => n + c.turns.length, 0)).toBe(2760);
    expect(convs.reduce((n, c) => n + c.memories.length, 0)).toBe(2760);
    expect(convs[0]?.memories[0]?.statedAt).toBe('2023-05-08T13:56:00.000Z');
    expect(convs.every((c) => c.memories.every((m) => typeof m.statedAt === 'string'))).toBe(true);
  });
});
