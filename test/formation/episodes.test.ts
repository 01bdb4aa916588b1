import { describe, expect, it } from 'vitest';
import type { Episode, NormalizedTurn } from '../../src/formation/episode.js';
import { MAX_EPISODE_SOURCES } from '../../src/formation/episode.js';
import {
  episodeScopeKey,
  isMergeable,
  planEpisodeWrite,
  planEpisodeWrites,
  type EpisodeWrite,
} from '../../src/formation/episode-merge.js';
import { normalizeTurnText, turnTextKey } from '../../src/formation/normalize-turn-text.js';
import { validateTurns } from '../../src/formation/validate-turns.js';
import { expectCode } from '../support/expect-code.js';

describe('normalizeTurnText: what counts as the same text', () => {
  it('ignores case, whitespace and punctuation', () => {
    const same = [
      'What can I cook tonight?',
      'what can i cook tonight',
      '  What   can I\tcook\ntonight?!  ',
      'What, can I cook... tonight?',
    ];
    expect(new Set(same.map(normalizeTurnText))).toEqual(new Set(['what can i cook tonight']));
    expect(new Set(same.map(turnTextKey)).size).toBe(1);
  });

  it('folds Unicode compatibility forms (NFKC), ß and invisible characters', () => {
    expect(normalizeTurnText('Ｉ ｌｏｖｅ ｃｏｆｆｅｅ')).toBe('i love coffee'); // full-width
    expect(normalizeTurnText('The ﬁle is ①')).toBe('the file is 1'); // ligature, circled digit
    expect(normalizeTurnText('STRASSE')).toBe(normalizeTurnText('Straße'));
    expect(normalizeTurnText('pea\u200Bnut')).toBe('pea nut');
    expect(turnTextKey('Café')).toBe(turnTextKey('Cafe\u0301')); // NFC and NFD spellings
  });

  it('keeps apart texts that differ in meaning', () => {
    expect(turnTextKey('I paid 3.5 euros')).not.toBe(turnTextKey('I paid 35 euros'));
    expect(turnTextKey('el año')).not.toBe(turnTextKey('el ano')); // diacritics kept
    expect(turnTextKey('I ❤ tea')).not.toBe(turnTextKey('I tea')); // symbols kept
    expect(turnTextKey('?')).not.toBe(turnTextKey('!')); // punctuation-only texts keep their form
    expect(turnTextKey('I live in Lisbon')).not.toBe(turnTextKey('I live in Berlin'));
  });

  it('is versioned', () => {
    expect(turnTextKey('x')).toMatch(/^n1:[0-9a-f]{64}$/);
  });

  it('gives ASCII texts (read in one pass) what the rule above gives them', () => {
    // The rule as documented, step by step.
    const rule = (text: string): string => {
      const nfkc = text.normalize('NFKC');
      const folded = nfkc
        .toLowerCase()
        .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
        .replace(/\p{P}/gu, ' ')
        .replace(/\s+/gu, ' ')
        .trim();
      return folded || nfkc.replace(/[\p{Cc}\p{Cf}]/gu, '').replace(/\s+/gu, ' ').trim();
    };
    const texts: string[] = [];
    for (let code = 0; code < 128; code++) {
      const c = String.fromCharCode(code);
      texts.push(c, `A${c}b`, ` ${c}${c} x`, `${c}${c}`);
    }
    let state = 7;
    const next = (): number => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let i = 0; i < 5000; i++)
      texts.push(Array.from({ length: Math.floor(next() * 14) }, () => String.fromCharCode(Math.floor(next() * 128))).join(''));
    for (const text of texts) expect(normalizeTurnText(text), JSON.stringify(text)).toBe(rule(text));
  });
});

const scope = { tenant: 't', user: 'ana' };
let seq = 0;
const deps = { now: () => new Date('2026-03-04T10:00:00.000Z'), newId: () => `ep${++seq}` };

function turn(text: string, patch: Partial<NormalizedTurn> = {}): NormalizedTurn {
  return {
    role: 'user',
    text,
    speaker: null,
    session: 's1',
    messageId: null,
    occurredAt: '2026-03-04T09:00:00.000Z',
    ...patch,
  };
}

function stored(writes: EpisodeWrite[]): (scopeKey: string, textKey: string) => Episode | null {
  const plans = planEpisodeWrites(writes, () => null, deps);
  const rows = new Map(plans.map((p) => [`${episodeScopeKey(p.episode.scope)}|${p.episode.textKey}`, p.episode]));
  return (scopeKey, textKey) => rows.get(`${scopeKey}|${textKey}`) ?? null;
}

describe('the episode merge rule', () => {
  it('a captured turn whose text exists adds a source and a count instead of a row', () => {
    const first = planEpisodeWrite({ scope, turn: turn('What can I cook tonight?'), origin: 'capture' }, null, deps);
    expect(first.action).toBe('insert');
    const again = planEpisodeWrite(
      { scope, turn: turn('what can I cook tonight', { occurredAt: '2026-03-05T09:00:00.000Z' }), origin: 'capture' },
      first.episode,
      deps,
    );
    expect(again.action).toBe('merge');
    expect(again.episode.id).toBe(first.episode.id);
    expect(again.episode.count).toBe(2);
    expect(again.episode.sources.map((s) => s.occurredAt)).toEqual([
      '2026-03-04T09:00:00.000Z',
      '2026-03-05T09:00:00.000Z',
    ]);
    expect(again.episode.text).toBe('What can I cook tonight?'); // the first wording is kept
  });

  it('a remembered turn merges the same way; replaying the same message id changes nothing', () => {
    const first = planEpisodeWrite(
      { scope, turn: turn('I love tea', { messageId: 'D1:3' }), origin: 'remember' },
      null,
      deps,
    );
    const replay = planEpisodeWrite(
      { scope, turn: turn('I love tea', { messageId: 'D1:3' }), origin: 'remember' },
      first.episode,
      deps,
    );
    expect(replay).toEqual({ action: 'unchanged', episode: first.episode });
    const other = planEpisodeWrite(
      { scope, turn: turn('I love tea!', { messageId: 'D2:1' }), origin: 'remember' },
      first.episode,
      deps,
    );
    expect(other.action).toBe('merge');
    expect(other.episode.count).toBe(2);
  });

  it('an explicit add with its own id or key stays its own row; without either it merges', () => {
    expect(isMergeable({ origin: 'add', id: 'mine' })).toBe(false);
    expect(isMergeable({ origin: 'add', key: 'k' })).toBe(false);
    expect(isMergeable({ origin: 'add' })).toBe(true);
    expect(isMergeable({ origin: 'capture', id: 'x' })).toBe(true);
    const existing = planEpisodeWrite({ scope, turn: turn('I love tea'), origin: 'capture' }, null, deps).episode;
    const own = planEpisodeWrite({ scope, turn: turn('I love tea'), origin: 'add', id: 'mine' }, existing, deps);
    expect(own.action).toBe('insert');
    expect(own.episode.id).toBe('mine');
    expect(own.episode.mergeable).toBe(false);
    expect(planEpisodeWrite({ scope, turn: turn('I love tea'), origin: 'add' }, existing, deps).action).toBe('merge');
  });

  it('repeats inside one batch merge into the row the batch creates; explicit adds never become merge targets', () => {
    const plans = planEpisodeWrites(
      [
        { scope, turn: turn('Hi'), origin: 'add', key: 'greeting' },
        { scope, turn: turn('hi!'), origin: 'capture' },
        { scope, turn: turn('HI'), origin: 'capture' },
      ],
      () => null,
      deps,
    );
    expect(plans.map((p) => p.action)).toEqual(['insert', 'insert', 'merge']);
    expect(plans[2]?.episode.id).toBe(plans[1]?.episode.id);
    expect(plans[2]?.episode.count).toBe(2);
  });

  it('merges only within the exact same scope', () => {
    const lookup = stored([{ scope, turn: turn('I love tea'), origin: 'capture' }]);
    const otherUser = planEpisodeWrites(
      [{ scope: { tenant: 't', user: 'bob' }, turn: turn('I love tea'), origin: 'capture' }],
      lookup,
      deps,
    );
    const sameUser = planEpisodeWrites(
      [{ scope: { user: 'ana', tenant: 't' }, turn: turn('i love tea'), origin: 'capture' }],
      lookup,
      deps,
    );
    const widerScope = planEpisodeWrites(
      [{ scope: { tenant: 't' }, turn: turn('I love tea'), origin: 'capture' }],
      lookup,
      deps,
    );
    expect(otherUser[0]?.action).toBe('insert');
    expect(widerScope[0]?.action).toBe('insert');
    expect(sameUser[0]?.action).toBe('merge');
  });

  it('keeps the count exact past the sources it keeps', () => {
    let episode = planEpisodeWrite({ scope, turn: turn('ping'), origin: 'capture' }, null, deps).episode;
    for (let i = 0; i < MAX_EPISODE_SOURCES + 8; i++)
      episode = planEpisodeWrite({ scope, turn: turn('ping'), origin: 'capture' }, episode, deps).episode;
    expect(episode.count).toBe(MAX_EPISODE_SOURCES + 9);
    expect(episode.sources).toHaveLength(MAX_EPISODE_SOURCES);
  });
});

describe('validateTurns', () => {
  const options = {
    limits: { maxTextLength: 100 },
    scope: { tenant: 't', session: 'sess' },
    now: () => new Date('2026-03-04T10:00:00Z'),
    maxTurns: 3,
  };

  it('normalises a transcript, with defaults from the scope and the clock', () => {
    const turns = validateTurns(
      [
        { role: 'user', content: 'hello', speaker: 'Ana', messageId: 'm1' },
        { role: 'assistant', text: 'hi', occurredAt: '2026-03-04T11:00:00+01:00' },
      ],
      options,
    );
    expect(turns).toEqual([
      {
        role: 'user',
        text: 'hello',
        speaker: 'Ana',
        session: 'sess',
        messageId: 'm1',
        occurredAt: '2026-03-04T10:00:00.000Z',
      },
      {
        role: 'assistant',
        text: 'hi',
        speaker: null,
        session: 'sess',
        messageId: null,
        occurredAt: '2026-03-04T10:00:00.000Z',
      },
    ]);
  });

  it('refuses bad transcripts with stable codes naming the turn', async () => {
    const run = (input: unknown) => Promise.resolve().then(() => validateTurns(input, options));
    expect((await expectCode(run([{ role: 'robot', text: 'x' }]), 'INVALID_INPUT')).details.field).toBe(
      'messages[0].role',
    );
    expect(
      (
        await expectCode(
          run([
            { role: 'user', text: 'ok' },
            { role: 'user', text: '   ' },
          ]),
          'INVALID_TEXT',
        )
      ).details.field,
    ).toBe('messages[1].text');
    await expectCode(run([{ role: 'user', text: 'x'.repeat(101) }]), 'TEXT_TOO_LONG');
    await expectCode(run([{ role: 'user', text: 'x', occurredAt: 'last tuesday' }]), 'INVALID_INPUT');
    await expectCode(run([{ role: 'user', text: 'x', colour: 'red' }]), 'INVALID_INPUT');
    await expectCode(run([]), 'INVALID_INPUT');
    await expectCode(run('not a transcript'), 'INVALID_INPUT');
    await expectCode(run(Array.from({ length: 4 }, () => ({ role: 'user', text: 'x' }))), 'PAYLOAD_TOO_LARGE');
  });
});
