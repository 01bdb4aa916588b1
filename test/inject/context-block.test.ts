import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PREAMBLE,
  formatContextBlock,
  formatStamp,
  type ContextBlockOptions,
} from '../../src/inject/context-block.js';
import { approximateTokens } from '../../src/inject/approximate-tokens.js';
import { isEngramError } from '../../src/model/errors.js';
import { hit, memory, HITS } from './helpers/fixtures.js';

describe('formatContextBlock', () => {
  it('formats the reference block: tag, preamble, one line per memory with UTC stamps, summaries', () => {
    const block = formatContextBlock(HITS);
    expect(block?.text).toBe(
      [
        '<engram_context>',
        DEFAULT_PREAMBLE,
        '- User is allergic to peanuts. Stated at 2026-05-01 09:30',
        '- User prefers spicy food. Stated at 2026-06-12 18:05',
        '## Summaries',
        '- Food allergies',
        '</engram_context>',
      ].join('\n'),
    );
    expect(block?.included).toHaveLength(2);
    expect(block?.omittedMemories).toBe(0);
  });

  it.each<[string, ContextBlockOptions, string[]]>([
    [
      'stated only',
      { timestamp: 'stated', summaries: false },
      ['- User is allergic to peanuts. Stated at 2026-05-01 09:30', '- User prefers spicy food'],
    ],
    [
      'no stamps',
      { timestamp: 'none', summaries: false },
      ['- User is allergic to peanuts', '- User prefers spicy food'],
    ],
    [
      'custom tag',
      { tag: 'memories', summaries: false, timestamp: 'none' },
      ['- User is allergic to peanuts', '- User prefers spicy food'],
    ],
  ])('option %s', (_name, options, lines) => {
    const text = formatContextBlock(HITS, options)?.text ?? '';
    const tag = options.tag ?? 'engram_context';
    expect(text).toBe([`<${tag}>`, DEFAULT_PREAMBLE, ...lines, `</${tag}>`].join('\n'));
  });

  it.each([
    ['2026-05-01T09:30:00Z', '2026-05-01 09:30'],
    ['2026-05-01T23:59:59+02:00', '2026-05-01 21:59'],
    ['2026-12-31T23:59:59.999-01:00', '2027-01-01 00:59'],
    ['not a date', null],
  ])('formatStamp(%s) = %s (UTC)', (iso, expected) => {
    expect(formatStamp(iso)).toBe(expected);
  });

  it('does not double the full stop when the memory already ends a sentence', () => {
    const text = formatContextBlock([hit(memory('Lives in Paris.', { statedAt: '2026-01-01T00:00:00Z' }))])?.text;
    expect(text).toContain('- Lives in Paris. Stated at 2026-01-01 00:00');
    expect(text).not.toContain('..');
  });

  it('shows a fact stored twice once, at its best rank', () => {
    const hits = [
      hit(memory('likes tea', { statedAt: null })),
      hit(memory('likes jazz')),
      hit(memory('likes tea', { statedAt: null })),
    ];
    const block = formatContextBlock(hits, { timestamp: 'none' });
    expect(block?.text.split('\n').filter((l) => l.startsWith('- '))).toEqual(['- likes tea', '- likes jazz']);
    expect(block?.included.map((h) => h.memory.id)).toEqual([hits[0]?.memory.id, hits[1]?.memory.id]);
    expect(block?.omittedMemories).toBe(0);
  });

  it('returns null with no hits or only empty memories', () => {
    expect(formatContextBlock([])).toBeNull();
    expect(formatContextBlock([hit(memory('  \n\t '))])).toBeNull();
  });

  it('dedupes summaries and only keeps those of included memories', () => {
    const hits = [
      hit(memory('a', { summary: 'S1' })),
      hit(memory('b', { summary: 'S1' })),
      hit(memory('c', { summary: 'S2' })),
    ];
    const text = formatContextBlock(hits, { maxMemories: 2, timestamp: 'none' })?.text ?? '';
    expect(text.match(/- S1/g)).toHaveLength(1);
    expect(text).not.toContain('S2');
    expect(text).toContain('(1 more memory omitted)');
  });

  it.each([
    [{ maxMemories: 4 }, 4, '(1 more memory omitted)'],
    [{ maxMemories: 0 }, 0, null],
    [{ maxMemories: 3 }, 3, '(2 more memories omitted)'],
  ])('bounds by count %j', (options, included, note) => {
    const hits = Array.from({ length: 5 }, (_, i) => hit(memory(`memory number ${i}`)));
    const block = formatContextBlock(hits, { ...options, timestamp: 'none' });
    if (included === 0) {
      expect(block).toBeNull();
      return;
    }
    expect(block?.included).toHaveLength(included);
    expect(block?.text).toContain(note ?? '');
    expect(block?.text.split('\n').filter((l) => l.startsWith('- memory number'))).toHaveLength(included);
  });

  it('bounds by characters, states the cut, and never exceeds the bound', () => {
    const hits = Array.from({ length: 50 }, (_, i) => hit(memory(`fact ${i} `.padEnd(80, 'x'))));
    for (const maxChars of [300, 500, 1000, 2500]) {
      const block = formatContextBlock(hits, { maxChars, maxTokens: 100_000, summaries: false });
      expect(block).not.toBeNull();
      expect(block!.text.length).toBeLessThanOrEqual(maxChars);
      expect(block!.included.length + block!.omittedMemories).toBe(50);
      expect(block!.text).toContain(`(${block!.omittedMemories} more memories omitted)`);
      expect(block!.text.endsWith('</engram_context>')).toBe(true);
    }
    expect(formatContextBlock(hits, { maxChars: 50 })).toBeNull();
  });

  it('bounds by approximate tokens (CJK counts one token per character)', () => {
    const hits = Array.from({ length: 30 }, (_, i) => hit(memory(`用户喜欢吃辣的食物和四川菜第${i}条`)));
    const block = formatContextBlock(hits, { maxTokens: 200, maxChars: 100_000, timestamp: 'none' });
    expect(block).not.toBeNull();
    expect(block!.approxTokens).toBeLessThanOrEqual(200);
    expect(approximateTokens(block!.text)).toBe(block!.approxTokens);
    expect(block!.omittedMemories).toBeGreaterThan(0);
  });

  it('drops summaries before memories and states it', () => {
    const hits = [hit(memory('short fact', { summary: 'x'.repeat(300) }))];
    const block = formatContextBlock(hits, { maxChars: 260, timestamp: 'none' });
    expect(block?.text).toContain('- short fact');
    expect(block?.text).not.toContain('## Summaries');
    expect(block?.text).toContain('(1 more summary omitted)');
    expect(block?.omittedSummaries).toBe(1);
  });

  it('cuts a single overlong memory with an ellipsis', () => {
    const block = formatContextBlock([hit(memory('y'.repeat(5000)))], { maxItemChars: 100, timestamp: 'none' });
    const line = block?.text.split('\n').find((l) => l.startsWith('- y')) ?? '';
    expect(Array.from(line).length).toBe(102);
    expect(line.endsWith('…')).toBe(true);
  });

  it.each(['', '1abc', 'a b', 'a>b', 'x'.repeat(65), '</x'])('rejects tag name %j', (tag) => {
    try {
      formatContextBlock(HITS, { tag });
      expect.fail('should throw');
    } catch (error) {
      expect(isEngramError(error, 'INVALID_INPUT')).toBe(true);
    }
  });

  it.each([-1, 1.5, Number.NaN])('rejects bound %s', (maxChars) => {
    expect(() => formatContextBlock(HITS, { maxChars })).toThrow(/maxChars/);
  });
});
