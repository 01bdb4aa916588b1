/**
 * Failures through the whole path on real stores: the LLM failing mid-batch (5xx, invalid JSON, a
 * timeout) is a retried job and the other windows are not held up; a refused key or exhausted
 * attempts end in the visible dead letter, re-queued by hand; a failed consolidation falls back to
 * the rules; invented turn ids, memory ids and dates are dropped. Nothing half-written.
 */
import { expect, it } from 'vitest';
import type { Engram, EngramEvent } from '../../src/engram.js';
import type { FormationEvent } from '../../src/formation/formation-event.js';
import type { Memory } from '../../src/model/memory.js';
import { handleOf } from './support/chat-for.js';
import {
  CONSOLIDATE,
  EXTRACT,
  extractionRule,
  describeEachBackend,
  formationSuite,
  formedFacts,
  type BackendName,
} from './support/formation-fixture.js';
import type { ScriptRule } from './support/scripted-llm-server.js';

const suite = formationSuite();

const SCOPE = { tenant: 't', user: 'ana' };
const turn = (session: string, text: string) => ({
  role: 'user',
  speaker: 'Ana',
  session,
  text,
  occurredAt: '2026-03-04T10:00:00Z',
});

async function setUp(backend: BackendName, rules: ScriptRule[], hangMs?: number) {
  const events: EngramEvent[] = [];
  const { engram, server } = await suite.withScriptedLlm(backend, { rules, hangMs, events });
  const formation = (): FormationEvent[] => events.flatMap((e) => (e.formation ? [e.formation] : []));
  return { engram, server, formation };
}

const facts = (engram: Engram): Promise<Memory[]> => formedFacts(engram, { limit: 50 });

const fact = (text: string, turnText: string) => ({ text, turn: turnText, key: null });

describeEachBackend('formation failures on %s', (backend) => {
  it('the LLM failing mid-batch (5xx, invalid JSON, a timeout) retries that window; the others are formed', async () => {
    const { engram, server, formation } = await setUp(
      backend,
      [
        {
          name: 'b-fails',
          match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('Bravo'),
          times: 2,
          reply: { fault: 'server-error', status: 503 },
        },
        {
          name: 'c-not-json',
          match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('Charlie'),
          times: 1,
          reply: { content: 'Sure! Here are the memories you asked for.' },
        },
        {
          name: 'd-hangs',
          match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('Delta'),
          times: 2,
          reply: { fault: 'hang' },
        },
        extractionRule('a', 'Alpha', [fact('Ana likes the Alpha band', 'Alpha')]),
        extractionRule('b', 'Bravo', [fact('Ana owns a dog named Bravo', 'Bravo')]),
        extractionRule('c', 'Charlie', [fact('Ana has a brother named Charlie', 'Charlie')]),
        extractionRule('d', 'Delta', [fact('Ana flies Delta airlines', 'Delta')]),
        { name: 'consolidate', match: CONSOLIDATE, reply: { content: { decisions: [] } } },
      ],
      2_500,
    );
    const result = await engram.remember(
      [
        turn('a', 'I love the band Alpha.'),
        turn('b', 'My dog is called Bravo.'),
        turn('c', 'My brother is Charlie.'),
        turn('d', 'I always fly Delta.'),
      ],
      { scope: SCOPE },
    );
    expect(result.jobs).toBe(4);
    await engram.idle({ timeoutMs: 30_000 });
    expect((await facts(engram)).map((m) => m.text).sort()).toEqual([
      'Ana flies Delta airlines',
      'Ana has a brother named Charlie',
      'Ana likes the Alpha band',
      'Ana owns a dog named Bravo',
    ]);
    const retried = formation().filter(
      (e): e is Extract<FormationEvent, { type: 'job-retrying' }> => e.type === 'job-retrying',
    );
    expect(retried.map((e) => e.error.code).sort()).toEqual(['LLM_ERROR', 'LLM_ERROR', 'TIMEOUT']);
    const jobs = (await engram.formationJobs({ scope: SCOPE })).items;
    expect(jobs.map((j) => j.state)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(jobs.map((j) => j.attempts).sort()).toEqual([1, 2, 2, 2]);
    expect(server.unmatched()).toEqual([]);
  }, 40_000);

  it('a refused key is dead at once, exhausted retries end dead; both are visible and re-queued by hand', async () => {
    const { engram, server, formation } = await setUp(backend, [
      {
        name: 'refused',
        match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('Echo'),
        times: 1,
        reply: { fault: 'server-error', status: 401 },
      },
      {
        name: 'down',
        match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('Foxtrot'),
        times: 8,
        reply: { fault: 'server-error', status: 500 },
      },
      extractionRule('e', 'Echo', [fact('Ana named her boat Echo', 'Echo')]),
      extractionRule('f', 'Foxtrot', [fact('Ana dances the foxtrot', 'Foxtrot')]),
      { name: 'consolidate', match: CONSOLIDATE, reply: { content: { decisions: [] } } },
    ]);
    await engram.remember([turn('e', 'My boat is Echo.'), turn('f', 'I dance the Foxtrot.')], { scope: SCOPE });
    await engram.idle({ timeoutMs: 30_000 });
    const status = await engram.formationStatus({ scope: SCOPE });
    expect(status.queue.counts).toMatchObject({ dead: 2, succeeded: 0, queued: 0, retrying: 0, running: 0 });
    const byCode = Object.fromEntries(status.dead.map((j) => [j.lastError?.code, j]));
    expect(byCode.UNAUTHORIZED?.attempts).toBe(1);
    expect(byCode.LLM_ERROR?.attempts).toBe(4);
    const dead = formation().filter((e): e is Extract<FormationEvent, { type: 'job-dead' }> => e.type === 'job-dead');
    expect(dead.map((e) => e.reason).sort()).toEqual(['UNAUTHORIZED is not retryable', 'gave up after 4 attempts']);
    expect(await facts(engram)).toEqual([]);
    // The key is fixed and the provider is back: the dead letters are re-queued by hand.
    for (const job of status.dead) await engram.requeueFormation(job.id, { scope: SCOPE });
    await engram.idle({ timeoutMs: 30_000 });
    expect((await facts(engram)).map((m) => m.text).sort()).toEqual([
      'Ana dances the foxtrot',
      'Ana named her boat Echo',
    ]);
    expect(server.unmatched()).toEqual([]);
  }, 40_000);

  it('a failed consolidation call falls back to the rules; invented turn ids, memory ids and dates are dropped', async () => {
    const { engram } = await setUp(backend, [
      extractionRule('first', 'Lisbon', [{ text: 'Ana lives in Lisbon', turn: 'Lisbon', key: 'user.residence' }]),
      {
        name: 'second',
        match: (r) => r.prompt.includes(EXTRACT) && r.prompt.includes('Berlin'),
        reply: ({ prompt }) => ({
          content: {
            memories: [
              {
                text: 'Ana moved to Berlin',
                kind: 'user_fact',
                key: 'user.residence',
                tags: [],
                confidence: 0.9,
                turns: [handleOf(prompt, 'Berlin', 't')],
                when: 'next Blursday',
              },
              {
                text: 'Ana met the Pope',
                kind: 'event',
                key: null,
                tags: [],
                confidence: 0.9,
                turns: ['t9'],
                when: null,
              },
              {
                text: 'Ana plays chess',
                kind: 'user_fact',
                key: null,
                tags: [],
                confidence: 0.9,
                turns: [handleOf(prompt, 'chess', 't')],
                when: '1999',
              },
            ],
          },
        }),
      },
      { name: 'consolidate-down', match: CONSOLIDATE, times: 4, reply: { fault: 'server-error', status: 500 } },
    ]);
    await engram.remember([turn('s1', 'I live in Lisbon.')], { scope: SCOPE });
    await engram.idle({ timeoutMs: 20_000 });
    await engram.remember([turn('s2', 'I moved to Berlin.'), turn('s2', 'I play chess.')], { scope: SCOPE });
    await engram.idle({ timeoutMs: 20_000 });
    const all = await facts(engram);
    // The invented turn's fact is gone; the dates that are not in the turns (or not dates) are dropped, the facts kept.
    expect(all.map((m) => m.text).sort()).toEqual(['Ana lives in Lisbon', 'Ana moved to Berlin', 'Ana plays chess']);
    const berlin = all.find((m) => m.text === 'Ana moved to Berlin') as Memory;
    // The consolidation call failed: the rules decided, by the key.
    expect(all.find((m) => m.text === 'Ana lives in Lisbon')).toMatchObject({ supersededBy: berlin.id });
    const history = (await engram.history(berlin.id, { scope: SCOPE })).items;
    expect(history[0]?.cause).toMatchObject({ type: 'formation', decidedBy: 'rules' });
    const [job] = (await engram.formationJobs({ scope: SCOPE, states: ['succeeded'] })).items.filter(
      (j) => j.episodeIds.length === 2,
    );
    expect(job?.result).toMatchObject({ candidates: 2, consolidation: { calls: 0, failedCalls: 1 } });
  });
});
