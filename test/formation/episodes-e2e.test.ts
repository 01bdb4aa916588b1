/**
 * Episodes on real stores: repeated texts merge, replays change nothing, a bad transcript stores
 * nothing, recall never shows a text twice, and without an LLM the pipeline still runs (episodes,
 * and the labelled rule-based extractor on request). On SQLite and PostgreSQL.
 */
import { expect, it } from 'vitest';
import type { Engram } from '../../src/engram.js';
import { isEngramError } from '../../src/model/errors.js';
import { describeEachBackend, formationSuite, recalled, type BackendName } from './support/formation-fixture.js';
import type { FormationOptions } from '../../src/formation/formation-options.js';

const suite = formationSuite();
const engramOn = (backend: BackendName, extra?: FormationOptions): Promise<Engram> => suite.withoutLlm(backend, extra);

const ANA = { tenant: 't', user: 'ana' };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return isEngramError(error) ? error.code : `no EngramError: ${String(error)}`;
}

async function episodeCount(engram: Engram): Promise<number> {
  return (await engram.stats({ scope: ANA, types: ['WorkingMemory'], statuses: ['activated', 'archived'] })).total;
}

describeEachBackend('episodes on %s', (backend) => {
  it('a text already in the scope adds a source and a count, a replay changes nothing, another scope gets its own row', async () => {
    const engram = await engramOn(backend);
    const first = await engram.remember(
      [
        { role: 'user', text: 'What can I cook tonight?', messageId: 'a1', session: 's1' },
        { role: 'user', text: 'what can I cook tonight ??', messageId: 'a2', session: 's1' },
      ],
      { scope: ANA },
    );
    expect(first.turns.map((t) => t.action)).toEqual(['insert', 'merge']);
    expect(first.turns[1]?.id).toBe(first.turns[0]?.id);
    expect(first.turns[1]?.count).toBe(2);
    expect(first.formation).toBe('episodes-only');
    const replay = await engram.remember(
      [{ role: 'user', text: 'What can I cook tonight?', messageId: 'a1', session: 's1' }],
      {
        scope: ANA,
      },
    );
    expect(replay.turns).toEqual([{ id: first.turns[0]?.id, action: 'unchanged', count: 2 }]);
    const other = await engram.remember([{ role: 'user', text: 'What can I cook tonight?' }], {
      scope: { tenant: 't', user: 'ben' },
    });
    expect(other.turns[0]?.action).toBe('insert');
    expect(other.turns[0]?.id).not.toBe(first.turns[0]?.id);
    expect(await episodeCount(engram)).toBe(1);
    // Recall shows the turn once, with its evidence.
    const hits = (await engram.recall('cook tonight', { scope: ANA, threshold: -1 })).hits;
    expect(hits.map((h) => h.memory.text)).toEqual(['What can I cook tonight?']);
  });

  it('keeps who said a turn and the turn it answers, as recall reads them (speaker, background)', async () => {
    const engram = await engramOn(backend);
    const stored = await engram.remember(
      [
        { role: 'user', speaker: 'Ben', text: 'Where did you go last weekend?', session: 's1' },
        { role: 'user', speaker: 'Ana', text: 'To the lake, with my sister.', session: 's1' },
        { role: 'user', speaker: 'Ana', text: 'New topic in another chat', session: 's2' },
      ],
      { scope: ANA },
    );
    const [question, answer, other] = await Promise.all(
      stored.turns.map(async (t) => (await engram.get(t.id, { scope: ANA }))!),
    );
    expect(question).toMatchObject({ background: null, metadata: { speaker: 'Ben' } });
    expect(answer).toMatchObject({ background: 'Where did you go last weekend?', metadata: { speaker: 'Ana' } });
    // Another session's turn does not answer the one before it.
    expect(other?.background).toBeNull();
  });

  it('recall, search and the context block never show two memories with the same normalised text, even from explicit adds', async () => {
    const engram = await engramOn(backend);
    await engram.addMany(
      [
        { text: 'Ana is allergic to peanuts', id: 'p1' },
        { text: 'ana is ALLERGIC to peanuts!', id: 'p2' },
        { text: 'Ana is allergic to peanuts.', key: 'k' },
        { text: 'Ana likes green tea' },
        { text: 'Ana lives in Lisbon' },
      ],
      { scope: ANA },
    );
    const texts = await recalled(engram, 'Is Ana allergic to peanuts?', { limit: 3 });
    expect(texts).toHaveLength(3);
    expect(texts[0]?.toLowerCase()).toContain('allergic to peanuts');
    expect(texts.filter((t) => t.toLowerCase().includes('allergic'))).toHaveLength(1);
    expect(texts).toContain('Ana likes green tea');
    const searched = await engram.search('Is Ana allergic to peanuts?', { scope: ANA, topK: 10, threshold: -1 });
    const allergic = searched.hits.filter((h) => h.memory.text.toLowerCase().includes('allergic'));
    expect(allergic).toHaveLength(1);
    expect(searched.hits.map((h) => h.memory.text)).toContain('Ana likes green tea');
  });

  it('a bad transcript is refused with its code and stores nothing', async () => {
    const engram = await engramOn(backend);
    const cases: Array<[unknown, string]> = [
      [[], 'INVALID_INPUT'],
      ['hello', 'INVALID_INPUT'],
      [[{ role: 'narrator', text: 'x' }], 'INVALID_INPUT'],
      [
        [
          { role: 'user', text: 'ok' },
          { role: 'user', text: '   ' },
        ],
        'INVALID_TEXT',
      ],
      [[{ role: 'user' }], 'INVALID_TEXT'],
      [
        [
          { role: 'user', text: 'ok' },
          { role: 'user', text: 'x'.repeat(40_000) },
        ],
        'TEXT_TOO_LONG',
      ],
      [Array.from({ length: 1001 }, () => ({ role: 'user', text: 'hi' })), 'PAYLOAD_TOO_LARGE'],
      [[{ role: 'user', text: 'ok', occurredAt: 'yesterday-ish' }], 'INVALID_INPUT'],
      [[{ role: 'user', text: 'ok', mood: 'happy' }], 'INVALID_INPUT'],
      [[{ role: 'user', text: 'ok', speaker: 'bad\u0001name' }], 'INVALID_INPUT'],
      [[{ role: 'user', text: 'lone \ud800 surrogate' }], 'INVALID_TEXT'],
    ];
    for (const [messages, code] of cases) {
      expect([
        JSON.stringify(messages).slice(0, 60),
        await codeOf(engram.remember(messages as unknown[], { scope: ANA })),
      ]).toEqual([JSON.stringify(messages).slice(0, 60), code]);
    }
    expect(await codeOf(engram.remember([{ role: 'user', text: 'ok' }], { scope: { tenant: '' } }))).toBe(
      'INVALID_SCOPE',
    );
    expect(await codeOf(engram.remember([{ role: 'user', text: 'ok' }], { scope: ANA, origin: 'fax' } as never))).toBe(
      'INVALID_INPUT',
    );
    expect(await episodeCount(engram)).toBe(0);
  });

  it('without an LLM, the labelled rule-based extractor forms and supersedes facts on request', async () => {
    const engram = await engramOn(backend, { extractor: 'rules' });
    await engram.remember(
      [{ role: 'user', speaker: 'Ana', text: 'I live in Lisbon.', occurredAt: '2024-05-10T09:00:00Z' }],
      {
        scope: ANA,
      },
    );
    await engram.remember(
      [
        {
          role: 'user',
          speaker: 'Ana',
          text: 'I moved to Berlin last month.',
          occurredAt: '2026-03-04T10:00:00Z',
          session: 's2',
        },
      ],
      { scope: ANA },
    );
    await engram.idle({ timeoutMs: 20_000 });
    const facts = (await engram.list({ scope: ANA, types: ['UserMemory'], limit: 10 })).items;
    const berlin = facts.find((m) => m.text === 'Ana moved to Berlin last month (2026-02)');
    const lisbon = facts.find((m) => m.text === 'Ana lives in Lisbon');
    expect(berlin?.tags).toContain('rule-based');
    expect(berlin?.metadata).toMatchObject({ formation: { method: 'rule' } });
    expect(lisbon).toMatchObject({ supersededBy: berlin?.id, validTo: '2026-02-01T00:00:00.000Z' });
    const status = await engram.formationStatus({ scope: ANA });
    expect(status).toMatchObject({ enabled: true, llm: null, extractor: { name: 'rule-based', method: 'rule' } });
    expect(await recalled(engram, 'Where does Ana live?')).not.toContain('Ana lives in Lisbon');
  });

  it('backpressure: past the backlog, remember answers STORE_BUSY and stores nothing', async () => {
    const engram = await engramOn(backend, { extractor: 'rules', maxBacklog: 1, worker: false });
    await engram.remember([{ role: 'user', text: 'I live in Lisbon.' }], { scope: ANA });
    const error = await engram
      .remember([{ role: 'user', text: 'I work at Acme.' }], { scope: ANA })
      .catch((e: unknown) => e);
    expect(isEngramError(error, 'STORE_BUSY')).toBe(true);
    expect(isEngramError(error) && error.isRetryable).toBe(true);
    expect(isEngramError(error) && error.details).toMatchObject({ reason: 'formation-backlog', waiting: 1, limit: 1 });
    expect(await episodeCount(engram)).toBe(1);
  });
});
