/**
 * The whole write path on real stores: remember → durable queue → background worker (the scripted
 * LLM server speaking the OpenAI-compatible and Anthropic wire formats) → memories → recall.
 * Hand-written conversations: new facts (ADD), a repeated preference (NOOP), a refined fact
 * (UPDATE), a move, a job change and an allergy correction (SUPERSEDE), a relative date.
 */
import { describe, expect, it } from 'vitest';
import type { Engram } from '../../src/engram.js';
import type { Memory } from '../../src/model/memory.js';
import { PROVIDERS, type Provider } from './support/chat-for.js';
import {
  consolidationRule,
  describeEachBackend,
  extractionRule,
  formationSuite,
  formedFacts,
  recalled,
  type BackendName,
} from './support/formation-fixture.js';

const suite = formationSuite();

const ANA = { tenant: 't', user: 'ana' };

const session1 = [
  {
    role: 'user',
    speaker: 'Ana',
    text: "Hi, I'm Ana. I live in Lisbon and work at Acme as a nurse.",
    messageId: 's1-1',
  },
  { role: 'assistant', text: 'Nice to meet you, Ana!', messageId: 's1-2' },
  { role: 'user', speaker: 'Ana', text: "I'm allergic to peanuts, and I love green tea.", messageId: 's1-3' },
].map((t) => ({ ...t, session: 's1', occurredAt: '2024-05-10T09:00:00Z' }));

const session2 = [
  {
    role: 'user',
    speaker: 'Ana',
    text: 'Big news: I moved to Berlin last month and started at Globex.',
    messageId: 's2-1',
  },
  { role: 'assistant', text: 'Congratulations!', messageId: 's2-2' },
  {
    role: 'user',
    speaker: 'Ana',
    text: 'Still drinking green tea every morning, I love green tea.',
    messageId: 's2-3',
  },
  {
    role: 'user',
    speaker: 'Ana',
    text: "I'm a senior nurse now. Also the allergist says it's not peanuts: I'm allergic to tree nuts.",
    messageId: 's2-4',
  },
  { role: 'user', speaker: 'Ana', text: "I'm flying to Rome next Friday.", messageId: 's2-5' },
].map((t) => ({ ...t, session: 's2', occurredAt: '2026-03-04T10:00:00Z' }));

const rules = () => [
  extractionRule('extract-1', 'I live in Lisbon', [
    { text: 'Ana lives in Lisbon', turn: 'I live in Lisbon', key: 'user.residence' },
    { text: 'Ana works at Acme', turn: 'I live in Lisbon', key: 'user.employer' },
    { text: 'Ana is a nurse', turn: 'I live in Lisbon', key: 'user.job_title' },
    { text: 'Ana is allergic to peanuts', turn: 'allergic to peanuts', key: 'user.allergy.peanuts' },
    { text: 'Ana loves green tea', turn: 'allergic to peanuts', key: 'user.preference.tea', kind: 'preference' },
  ]),
  extractionRule('extract-2', 'moved to Berlin', [
    { text: 'Ana moved to Berlin last month', turn: 'moved to Berlin', key: 'user.residence', when: 'last month' },
    { text: 'Ana works at Globex', turn: 'moved to Berlin', key: 'user.employer' },
    { text: 'Ana loves green tea', turn: 'Still drinking', key: 'user.preference.tea', kind: 'preference' },
    { text: 'Ana is a senior nurse', turn: 'senior nurse', key: 'user.job_title' },
    { text: 'Ana is allergic to tree nuts, not peanuts', turn: 'senior nurse', key: 'user.allergy.tree_nuts' },
    { text: 'Ana is flying to Rome next Friday', turn: 'Rome', key: null, kind: 'event', when: 'next Friday' },
  ]),
  consolidationRule('consolidate-2', 'Globex', [
    { candidate: 'Ana moved to Berlin', action: 'SUPERSEDE', target: 'Ana lives in Lisbon' },
    { candidate: 'Ana works at Globex', action: 'SUPERSEDE', target: 'Ana works at Acme' },
    { candidate: 'Ana loves green tea', action: 'NOOP', target: 'Ana loves green tea' },
    { candidate: 'Ana is a senior nurse', action: 'UPDATE', target: 'Ana is a nurse', text: 'Ana is a senior nurse' },
    { candidate: 'Ana is allergic to tree nuts', action: 'SUPERSEDE', target: 'Ana is allergic to peanuts' },
    { candidate: 'Ana is flying to Rome', action: 'ADD' },
  ]),
];

const setUp = (backend: BackendName, provider: Provider) =>
  suite.withScriptedLlm(backend, { rules: rules(), provider });
const facts = (engram: Engram): Promise<Memory[]> => formedFacts(engram, { statuses: ['activated'], limit: 100 });

const byText = (memories: Memory[], text: string): Memory | undefined => memories.find((m) => m.text === text);

describeEachBackend('formation end to end on %s', (backend) => {
  describe.each(PROVIDERS)('over %s', (provider) => {
    it('forms, refines, confirms and supersedes facts in the background; recall answers what is valid now', async () => {
      const { engram, server } = await setUp(backend, provider);
      const first = await engram.remember(session1, { scope: ANA });
      expect(first).toMatchObject({ jobs: 1, formation: 'queued' });
      expect(first.turns.map((t) => t.action)).toEqual(['insert', 'insert', 'insert']);
      await engram.idle({ timeoutMs: 20_000 });
      // Nothing to compare with yet: one extraction call and no consolidation call.
      expect(server.calls.map((c) => c.rule)).toEqual(['extract-1']);

      await engram.remember(session2, { scope: ANA });
      await engram.idle({ timeoutMs: 20_000 });
      expect(server.calls.map((c) => c.rule)).toEqual(['extract-1', 'extract-2', 'consolidate-2']);
      expect(server.unmatched()).toEqual([]);
      const status = await engram.formationStatus({ scope: ANA });
      expect(status.queue.counts).toMatchObject({ succeeded: 2, queued: 0, running: 0, retrying: 0, dead: 0 });

      const all = await facts(engram);
      const lisbon = byText(all, 'Ana lives in Lisbon') as Memory;
      const berlin = byText(all, 'Ana moved to Berlin last month (2026-02)') as Memory;
      // SUPERSEDE: the old fact stays, ended where the new one starts, pointing at it.
      expect(lisbon).toMatchObject({ validTo: '2026-02-01T00:00:00.000Z', supersededBy: berlin.id, version: 2 });
      expect(berlin).toMatchObject({ validFrom: '2026-02-01T00:00:00.000Z', validTo: null, supersededBy: null });
      // A fact keeps who said its turns, as the turns do (recall reads a speaker there).
      expect(berlin.metadata).toMatchObject({ speaker: 'Ana' });
      // UPDATE: the same memory, refined, one version up.
      const nurse = all.filter((m) => m.key === 'user.job_title');
      expect(nurse.map((m) => [m.text, m.version])).toEqual([['Ana is a senior nurse', 2]]);
      // NOOP: the repeated preference is one memory with both turns as evidence.
      const tea = all.filter((m) => m.text === 'Ana loves green tea');
      expect(tea).toHaveLength(1);
      expect(tea[0]?.sources).toHaveLength(2);
      // A relative date resolved against the turn's own time.
      expect(byText(all, 'Ana is flying to Rome next Friday (2026-03-13)')).toBeDefined();

      // formedTurns 'superseded' (the default): the turns of superseded facts are archived, every
      // other turn stays recallable beside its facts.
      const turns = await engram.list({ scope: ANA, types: ['WorkingMemory'], statuses: ['activated'], limit: 50 });
      const active = turns.items.map((m) => m.text);
      expect(active).toContain('Big news: I moved to Berlin last month and started at Globex.');
      expect(active).toContain("I'm flying to Rome next Friday.");
      expect(active).toContain('Still drinking green tea every morning, I love green tea.');
      expect(active).not.toContain("Hi, I'm Ana. I live in Lisbon and work at Acme as a nurse.");
      expect(active).not.toContain("I'm allergic to peanuts, and I love green tea.");

      // Recall: valid now by default — the current values, never the old ones.
      const now = await recalled(engram, 'Which city did Ana move to and where does she work?');
      expect(now).toContain('Ana moved to Berlin last month (2026-02)');
      expect(now).toContain('Ana works at Globex');
      expect(now).not.toContain('Ana lives in Lisbon');
      expect(now).not.toContain('Ana works at Acme');
      expect(now).not.toContain('Ana is allergic to peanuts');
      // The raw turns that said the old values were formed and archived: not recalled either.
      expect(now.some((t) => t.includes('I live in Lisbon'))).toBe(false);

      // asOf: what was valid then.
      const then = await recalled(engram, 'Which city does Ana live in?', { asOf: '2025-06-01T00:00:00Z' });
      expect(then).toContain('Ana lives in Lisbon');
      expect(then).not.toContain('Ana moved to Berlin last month (2026-02)');

      // includeSuperseded: the old values too, saying so.
      const both = await engram.recall('Ana Lisbon Berlin', {
        scope: ANA,
        includeSuperseded: true,
        limit: 20,
        threshold: -1,
      });
      const old = both.hits.find((h) => h.memory.id === lisbon.id);
      expect(old?.explanation.validity).toMatchObject({ state: 'superseded', supersededBy: berlin.id });
      expect(both.hits.find((h) => h.memory.id === berlin.id)?.explanation.validity?.state).toBe('valid');

      // The searcher answers in the same time: valid now by default, asOf, includeSuperseded explained.
      const searched = async (options: Record<string, unknown> = {}) =>
        (await engram.search('Ana Lisbon Berlin city', { scope: ANA, topK: 20, threshold: -1, ...options })).hits;
      const current = (await searched()).map((h) => h.memory.id);
      expect(current).toContain(berlin.id);
      expect(current).not.toContain(lisbon.id);
      const past = (await searched({ asOf: '2025-06-01T00:00:00Z' })).map((h) => h.memory.id);
      expect(past).toContain(lisbon.id);
      expect(past).not.toContain(berlin.id);
      const every = await searched({ includeSuperseded: true });
      expect(every.find((h) => h.memory.id === lisbon.id)?.explanation.validity).toMatchObject({
        state: 'superseded',
        supersededBy: berlin.id,
      });
      expect(every.find((h) => h.memory.id === berlin.id)?.explanation.validity?.state).toBe('valid');
    });

    it('records every change in the history, with the cause and the source turns', async () => {
      const { engram } = await setUp(backend, provider);
      await engram.remember(session1, { scope: ANA });
      await engram.idle({ timeoutMs: 20_000 });
      const stored = await engram.remember(session2, { scope: ANA });
      await engram.idle({ timeoutMs: 20_000 });
      const all = await facts(engram);
      const lisbon = byText(all, 'Ana lives in Lisbon') as Memory;
      const berlin = byText(all, 'Ana moved to Berlin last month (2026-02)') as Memory;
      const history = await engram.history(lisbon.id, { scope: ANA });
      expect(history.items.map((e) => e.kind)).toEqual(['created', 'superseded']);
      const superseded = history.items[1];
      expect(superseded?.cause).toMatchObject({ type: 'formation', decidedBy: 'llm' });
      expect(superseded?.after).toMatchObject({ supersededBy: berlin.id, validTo: '2026-02-01T00:00:00.000Z' });
      expect(superseded?.sourceTurnIds).toEqual([stored.turns[0]?.id]);
      const tea = byText(all, 'Ana loves green tea') as Memory;
      expect((await engram.history(tea.id, { scope: ANA })).items.map((e) => e.kind)).toEqual(['created', 'confirmed']);
      const nurse = all.find((m) => m.key === 'user.job_title') as Memory;
      const refined = (await engram.history(nurse.id, { scope: ANA })).items;
      expect(refined.map((e) => [e.kind, e.before?.text ?? null, e.after?.text ?? null])).toEqual([
        ['created', null, 'Ana is a nurse'],
        ['updated', 'Ana is a nurse', 'Ana is a senior nurse'],
      ]);
      // An unknown id has no history (no error: ids are not secrets, tenants are the boundary).
      expect((await engram.history('nope', { scope: ANA })).items).toEqual([]);
      expect((await engram.history(lisbon.id, { scope: { tenant: 'other' } })).items).toEqual([]);
    });
  });
});
