import { expect } from 'vitest';
import type { EpisodeWrite } from '../../../src/model/formation/episode-merge.js';
import type { NewFormationJob } from '../../../src/model/formation/work-queue.js';
import { turnTextKey } from '../../../src/model/formation/normalize-turn-text.js';
import type { Scope } from '../../../src/model/scope.js';
import { expectCode } from '../../support/expect-code.js';
import { randomVector, seededRandom } from '../fixtures/records.js';
import { formationOf, type CaseContext } from './case-context.js';

/** A captured turn. */
export function turnWrite(scope: Scope, text: string, extra: Partial<EpisodeWrite['turn']> = {}): EpisodeWrite {
  return {
    scope,
    origin: 'capture',
    turn: {
      role: 'user',
      text,
      speaker: null,
      session: null,
      messageId: null,
      occurredAt: '2026-03-01T09:00:00.000Z',
      ...extra,
    },
  };
}

/** One job for the window of all the plans' episodes. */
export function windowJob(scope: Scope, key: string, episodeIds: string[]): NewFormationJob {
  return {
    scope,
    idempotencyKey: key,
    extractor: { name: 'rules', version: 'r1' },
    episodeIds,
    session: null,
    timezoneOffsetMinutes: 0,
  };
}

/** Episodes: rows merged on the normalised text within the exact scope, with their jobs, in one transaction. */
export function episodeCases({ test, store: current, tenant }: CaseContext): void {
  test('episodes: the same normalised text in one scope is one row counted twice; a replay changes nothing', async () => {
    const store = current();
    const { episodes } = formationOf(store);
    const scope = { tenant: tenant(), user: 'ana' };
    const first = await episodes.appendEpisodes(
      [turnWrite(scope, 'I love  Jazz!', { messageId: 'm1', session: 's1' })],
      { at: '2026-03-01T09:00:01.000Z' },
    );
    expect(first.map((p) => p.action)).toEqual(['insert']);
    const again = await episodes.appendEpisodes(
      [
        turnWrite(scope, 'i love jazz', { messageId: 'm2', session: 's1' }),
        turnWrite(scope, 'I love  Jazz!', { messageId: 'm1', session: 's1' }),
      ],
      { at: '2026-03-01T09:05:00.000Z' },
    );
    expect(again.map((p) => p.action)).toEqual(['merge', 'unchanged']);
    const id = first[0]!.episode.id;
    const [stored] = await episodes.getEpisodes(scope.tenant, [id]);
    expect(stored).toMatchObject({ id, text: 'I love  Jazz!', count: 2, mergeable: true, scope });
    expect(stored?.sources.map((s) => s.messageId)).toEqual(['m1', 'm2']);
    expect(stored?.textKey).toBe(turnTextKey('I LOVE JAZZ'));
    expect(await episodes.findEpisode(scope, turnTextKey('i love jazz'))).toEqual(stored);
    const rows = await store.list({ scope: { tenant: scope.tenant } });
    expect(rows.items.map((m) => [m.id, m.type, m.validFrom])).toEqual([
      [id, 'WorkingMemory', '2026-03-01T09:00:00.000Z'],
    ]);
    const events = (await formationOf(store).history.list(scope.tenant, id)).items;
    expect(events.map((e) => e.kind)).toEqual(['created', 'confirmed']);
  });

  test('episodes: another exact scope, and an explicit add with its own id or key, get rows of their own', async () => {
    const store = current();
    const { episodes } = formationOf(store);
    const T = tenant();
    const plans = await episodes.appendEpisodes(
      [
        turnWrite({ tenant: T, user: 'ana' }, 'same text'),
        turnWrite({ tenant: T }, 'same text'),
        turnWrite({ tenant: T, user: 'ana', session: 's' }, 'same text'),
        { ...turnWrite({ tenant: T, user: 'ana' }, 'same text'), origin: 'add', id: `own-${T}` },
        { ...turnWrite({ tenant: T, user: 'ana' }, 'same text'), origin: 'add', key: 'k' },
        turnWrite({ tenant: T, user: 'ana' }, 'SAME text.'),
      ],
      { at: '2026-03-01T10:00:00.000Z' },
    );
    expect(plans.map((p) => p.action)).toEqual(['insert', 'insert', 'insert', 'insert', 'insert', 'merge']);
    expect(plans[3]?.episode.id).toBe(`own-${T}`);
    expect(plans[5]?.episode.id).toBe(plans[0]?.episode.id);
    expect(await store.count({ scope: { tenant: T } })).toBe(5);
    const got = await episodes.getEpisodes(T, [plans[5]!.episode.id, `own-${T}`, 'missing']);
    expect(got.map((e) => [e.id, e.count, e.mergeable])).toEqual([
      [plans[0]!.episode.id, 2, true],
      [`own-${T}`, 1, false],
    ]);
    expect((await store.list({ scope: { tenant: T }, key: 'k' })).items).toHaveLength(1);
  });

  test('episodes: jobs derived from the plans are enqueued in the same transaction', async () => {
    const store = current();
    const { episodes, queue } = formationOf(store);
    const scope = { tenant: tenant(), user: 'u' };
    const jobsFor = (plans: Array<{ episode: { id: string } }>) => [
      windowJob(
        scope,
        `w-${plans.map((p) => p.episode.id).join(',')}`,
        plans.map((p) => p.episode.id),
      ),
    ];
    const plans = await episodes.appendEpisodes([turnWrite(scope, 'a'), turnWrite(scope, 'b')], {
      at: '2026-03-01T11:00:00.000Z',
      jobsFor,
    });
    const listed = await queue.list(scope.tenant);
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({ state: 'queued', episodeIds: plans.map((p) => p.episode.id), scope });
  });

  test('episodes: a bad write or a failing jobsFor rejects the whole append, nothing written', async () => {
    const store = current();
    const { episodes, queue } = formationOf(store);
    const scope = { tenant: tenant() };
    const bad = turnWrite(scope, 'nul \u0000 inside');
    await expectCode(
      episodes.appendEpisodes([turnWrite(scope, 'fine'), bad], { at: '2026-03-01T12:00:00.000Z' }),
      'INVALID_TEXT',
    );
    await expectCode(
      episodes.appendEpisodes([turnWrite(scope, 'fine'), { ...turnWrite(scope, 'x'), origin: 'email' as never }], {
        at: '2026-03-01T12:00:00.000Z',
      }),
      'INVALID_INPUT',
    );
    await expect(
      episodes.appendEpisodes([turnWrite(scope, 'fine')], {
        at: '2026-03-01T12:00:00.000Z',
        jobsFor: () => {
          throw new Error('planner broke');
        },
      }),
    ).rejects.toThrow();
    await expectCode(
      episodes.appendEpisodes([turnWrite(scope, 'fine')], {
        at: '2026-03-01T12:00:00.000Z',
        jobsFor: () => [windowJob({ tenant: 'someone-else' }, 'k', [])],
      }),
      'INVALID_INPUT',
    );
    expect(await store.count({ scope })).toBe(0);
    expect((await queue.list(scope.tenant)).items).toEqual([]);
    expect(await episodes.findEpisode(scope, turnTextKey('fine'))).toBeNull();
  });

  test('episodes: an inserted row keeps the vector given with its write and is found by dense search', async () => {
    const store = current();
    const { episodes } = formationOf(store);
    const scope = { tenant: tenant() };
    const vector = randomVector(seededRandom(9), 6);
    const embedding = { model: 'test-model', dim: 6 };
    const [plan] = await episodes.appendEpisodes([turnWrite(scope, 'I like tea')], {
      at: '2026-03-01T13:00:00.000Z',
      vectors: [{ vector, embedding }],
    });
    const hits = await store.denseSearch({ filter: { scope }, vector, model: 'test-model', limit: 5 });
    expect(hits.map((h) => h.id)).toEqual([plan!.episode.id]);
    expect((await store.get(scope.tenant, [plan!.episode.id]))[0]?.embedding).toEqual(embedding);
  });
}
