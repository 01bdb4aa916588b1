import { describe, expect, it } from 'vitest';
import { planWindows, type WindowTurn } from '../../src/formation/plan-windows.js';
import { resolveDatePhrase } from '../../src/formation/resolve-date.js';
import { windowKey } from '../../src/formation/window-key.js';

// A Wednesday.
const said = '2026-03-04T10:00:00.000Z';

function resolved(phrase: string, at = said, timezoneOffsetMinutes = 0) {
  const r = resolveDatePhrase(phrase, at, { timezoneOffsetMinutes });
  if (!r.ok) throw new Error(`${phrase}: ${r.reason}`);
  return r.date;
}

describe('resolveDatePhrase: relative dates resolved in code against the time they were said', () => {
  it('resolves days, months and years with their granularity', () => {
    expect(resolved('yesterday')).toMatchObject({
      label: '2026-03-03',
      granularity: 'day',
      start: '2026-03-03T00:00:00.000Z',
      end: '2026-03-04T00:00:00.000Z',
    });
    expect(resolved('next Friday')).toMatchObject({ label: '2026-03-13', granularity: 'day' });
    expect(resolved('last Friday').label).toBe('2026-02-27');
    expect(resolved('two weeks ago').label).toBe('2026-02-18');
    expect(resolved('last month')).toMatchObject({
      label: '2026-02',
      granularity: 'month',
      start: '2026-02-01T00:00:00.000Z',
      end: '2026-03-01T00:00:00.000Z',
    });
    expect(resolved('last year')).toMatchObject({
      label: '2025',
      granularity: 'year',
      start: '2025-01-01T00:00:00.000Z',
      end: '2026-01-01T00:00:00.000Z',
    });
    expect(resolved('8 May, 2023').label).toBe('2023-05-08');
    expect(resolved('in 2019')).toMatchObject({ label: '2019', granularity: 'year' });
    expect(resolved('since last year').label).toBe('2025');
  });

  it('depends on when it was said, not on today', () => {
    expect(resolved('yesterday', '2023-05-08T13:56:00.000Z').label).toBe('2023-05-07');
    expect(resolved('last year', '2023-05-08T13:56:00.000Z').label).toBe('2022');
  });

  it('uses the conversation’s local day when an offset is given', () => {
    // 00:30 UTC on 4 March is the evening of 3 March in UTC-5.
    const evening = '2026-03-04T00:30:00.000Z';
    expect(resolved('yesterday', evening).label).toBe('2026-03-03');
    const local = resolved('yesterday', evening, -300);
    expect(local.label).toBe('2026-03-02');
    expect(local.start).toBe('2026-03-02T05:00:00.000Z');
  });

  it('refuses impossible dates and phrases it cannot read whole, with a reason', () => {
    for (const phrase of ['2023-02-30', 'February 30, 2024', 'the 45th of March', '2023-13-45']) {
      expect(resolveDatePhrase(phrase, said)).toMatchObject({ ok: false, reason: 'impossible-date' });
    }
    for (const phrase of ['soon', 'last summer', 'whenever']) {
      expect(resolveDatePhrase(phrase, said)).toMatchObject({ ok: false, reason: 'unparseable-date' });
    }
  });
});

function turns(n: number, session = 's1', text = 'hello there'): WindowTurn[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${session}-${i}`,
    role: 'user',
    speaker: null,
    text,
    occurredAt: said,
    session,
  }));
}

describe('planWindows', () => {
  const scope = { tenant: 't' };

  it('cuts by turn count, keeping order', () => {
    const windows = planWindows(turns(45), { scope, limits: { maxTurns: 20, maxTokens: 10_000 } });
    expect(windows.map((w) => w.turns.length)).toEqual([20, 20, 5]);
    expect(windows.flatMap((w) => w.turns.map((t) => t.id))).toEqual(turns(45).map((t) => t.id));
  });

  it('cuts by token budget and never splits or drops an oversized turn', () => {
    const small = turns(6, 's1', 'x'.repeat(400)); // 100 tokens each
    const big = { ...small[0], id: 'big', text: 'y'.repeat(4000) } as WindowTurn;
    const windows = planWindows([...small.slice(0, 3), big, ...small.slice(3)], {
      scope,
      limits: { maxTurns: 20, maxTokens: 250 },
    });
    expect(windows.map((w) => w.turns.map((t) => t.id))).toEqual([
      ['s1-0', 's1-1'],
      ['s1-2'],
      ['big'],
      ['s1-3', 's1-4'],
      ['s1-5'],
    ]);
  });

  it('never mixes sessions in a window', () => {
    const windows = planWindows([...turns(3, 'a'), ...turns(2, 'b')], {
      scope,
      limits: { maxTurns: 20, maxTokens: 10_000 },
    });
    expect(windows.map((w) => [w.session, w.turns.length])).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
  });
});

describe('windowKey', () => {
  const window = { scope: { tenant: 't', user: 'u' }, session: 's', turns: turns(3).map(({ session: _s, ...t }) => t) };
  const extractor = { name: 'llm', version: 'x1+openai:m' };

  it('is stable for the same scope, extractor version and turns, and changes with any of them', () => {
    const key = windowKey(window, extractor);
    expect(windowKey(structuredClone(window), { ...extractor })).toBe(key);
    expect(windowKey(window, { ...extractor, version: 'x2+openai:m' })).not.toBe(key);
    expect(windowKey({ ...window, scope: { tenant: 't', user: 'v' } }, extractor)).not.toBe(key);
    expect(windowKey({ ...window, turns: window.turns.slice(1) }, extractor)).not.toBe(key);
  });
});
