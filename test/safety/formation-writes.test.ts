/**
 * What formation writes passes the write guard (src/formation/write-formed-window.ts): facts and
 * refinements an LLM proposes — here a scripted OpenAI-compatible server on 127.0.0.1 that answers
 * with a card number and an API key the transcript never held — are masked like `add` / `update`
 * before they are embedded or stored, an update's new text recomputes the memory's safety report
 * (categories and counts, never values), and an operation the tenant's policy refuses is dropped.
 * The candidates the extraction LLM proposes are masked before consolidation: neither the
 * consolidation request nor any embedding input (the rule consolidator's comparisons included)
 * holds what it invented.
 * The stores are real: a SQLite file (whose bytes are read) and a throwaway PostgreSQL server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

import type { EmbedOptions } from '../../src/embed/embedder.js';
import { Engram } from '../../src/engram.js';
import type { Memory } from '../../src/model/memory.js';
import type { SafetyPolicyPatch } from '../../src/model/safety-policy-patch.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { chatFor } from '../formation/support/chat-for.js';
import {
  CONSOLIDATE,
  consolidationRule,
  extractionRule,
  FormationBackends,
  openStoreAt,
  testFormation,
  type BackendName,
} from '../formation/support/formation-fixture.js';
import {
  startScriptedLlm,
  type ScriptedLlmServer,
  type ScriptRule,
} from '../formation/support/scripted-llm-server.js';
import { body, luhnNumber } from './support/tokens.js';

const OPENAI = `sk-proj-${body(64, 91, 'ABCDEFGHIJabcdefghij0123456789_-')}`;
const CARD = luhnNumber('4', 16, 92);
const ANA = { tenant: 't', user: 'ana' };

const backends = new FormationBackends();
const open: Array<{ engram: Engram; server: ScriptedLlmServer }> = [];
afterEach(async () => {
  for (const { engram, server } of open.splice(0)) {
    await engram.close();
    await server.close();
  }
});
afterAll(() => backends.close());

const turns = (session: string, texts: string[]) =>
  texts.map((text, i) => ({
    role: 'user',
    speaker: 'Ana',
    text,
    messageId: `${session}-${i}`,
    session,
    occurredAt: session === 's1' ? '2026-01-10T09:00:00Z' : '2026-02-10T09:00:00Z',
  }));

const session1 = turns('s1', ['I pay the rent by card every month.', 'I look after the staging server at work.']);
const session2 = turns('s2', ['These days I pay the rent by bank transfer.', 'I got a new key for the staging server.']);

/** The LLM answers with values the turns never held: the guard must catch what it proposes. */
const rules = () => [
  extractionRule('extract-1', 'pay the rent by card', [
    { text: `Ana pays the rent with her card ${CARD}`, turn: 'pay the rent by card', key: 'user.rent' },
    { text: 'Ana looks after the staging server', turn: 'staging server', key: 'user.staging' },
  ]),
  extractionRule('extract-2', 'bank transfer', [
    { text: 'Ana pays the rent by bank transfer', turn: 'bank transfer', key: 'user.rent' },
    { text: `Ana's staging server key is ${OPENAI}`, turn: 'new key', key: 'user.staging' },
  ]),
  consolidationRule('consolidate-2', 'bank transfer', [
    {
      candidate: 'Ana pays the rent by bank transfer',
      action: 'UPDATE',
      target: `Ana pays the rent with her card [card Visa •••• ${CARD.slice(-4)}]`,
      text: 'Ana pays the rent by bank transfer',
    },
    {
      candidate: "Ana's staging server key",
      action: 'UPDATE',
      target: 'Ana looks after the staging server',
      text: `Ana looks after the staging server; its key is ${OPENAI}`,
    },
  ]),
];

async function setUp(backend: BackendName, policy: SafetyPolicyPatch = {}, script: ScriptRule[] = rules()) {
  const server = await startScriptedLlm({ rules: script });
  const location = await backends.location(backend);
  const embedded: string[] = [];
  const everyInput: string[] = [];
  const embedder = new (class extends HashedEmbedder {
    override async embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
      // What is stored: the vectors of formed memories (the rule consolidator's own comparisons pass no role).
      if (options?.role === 'document') embedded.push(...texts);
      everyInput.push(...texts);
      return super.embed(texts);
    }
  })({ dim: 128 });
  const engram = await Engram.open({
    store: await openStoreAt(location),
    embedder,
    env: {},
    formation: testFormation(chatFor('openai', server, { retries: 1, timeoutMs: 2_000 })),
    safety: { policy },
  });
  open.push({ engram, server });
  return { engram, server, location, embedded, everyInput };
}

async function facts(engram: Engram): Promise<Memory[]> {
  const page = await engram.list({ scope: ANA, types: ['UserMemory'], statuses: ['activated'], limit: 50 });
  return page.items;
}

const byKey = (memories: Memory[], key: string): Memory | undefined => memories.find((m) => m.key === key);

/** The SQLite database file and its WAL, as bytes on disk. */
function databaseBytes(location: string): string {
  return [location, `${location}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('\n');
}

describe.each(['sqlite', 'postgres'] as const)('formation writes through the guard on %s', (backend) => {
  it("masks a card and a key an LLM proposed, in facts and updates; an update's report says what it holds now", async () => {
    const { engram, server, location, embedded } = await setUp(backend);
    await engram.remember(session1, { scope: ANA });
    await engram.idle({ timeoutMs: 20_000 });
    const first = await facts(engram);
    const rent = byKey(first, 'user.rent') as Memory;
    expect(rent.text).toBe(`Ana pays the rent with her card [card Visa •••• ${CARD.slice(-4)}]`);
    expect(rent.metadata.engramSafety).toEqual({
      masked: { card: 1 },
      items: [{ field: 'text', category: 'card', kind: 'Visa' }],
      flags: [],
    });

    await engram.remember(session2, { scope: ANA });
    await engram.idle({ timeoutMs: 20_000 });
    expect(server.calls.map((c) => c.rule)).toEqual(['extract-1', 'extract-2', 'consolidate-2']);
    const after = await facts(engram);
    // The update replaced the masked text with a clean one: its report no longer lists the card.
    const paid = byKey(after, 'user.rent') as Memory;
    expect(paid).toMatchObject({ id: rent.id, text: 'Ana pays the rent by bank transfer', version: 2 });
    expect(paid.metadata.engramSafety).toBeUndefined();
    expect(paid.metadata).toMatchObject({ formation: expect.any(Object) });
    // The update an LLM wrote with a key in it: masked, and the report says so.
    const staging = byKey(after, 'user.staging') as Memory;
    expect(staging).toMatchObject({ text: 'Ana looks after the staging server; its key is [secret:openai]', version: 2 });
    expect(staging.metadata.engramSafety).toEqual({
      masked: { secret: 1 },
      items: [{ field: 'text', category: 'secret', kind: 'openai' }],
      flags: [],
    });
    // The history of the change holds the masked text only.
    const history = await engram.history(staging.id, { scope: ANA });
    expect(history.items.map((e) => [e.kind, e.after?.text])).toEqual([
      ['created', 'Ana looks after the staging server'],
      ['updated', 'Ana looks after the staging server; its key is [secret:openai]'],
    ]);
    expect((history.items[1]?.after?.metadata as Record<string, unknown>).engramSafety).toMatchObject({
      masked: { secret: 1 },
    });
    // Recall's explanation reads the report.
    const hit = (await engram.recall('staging server key', { scope: ANA, threshold: -1 })).hits.find(
      (h) => h.memory.id === staging.id,
    );
    expect(hit?.memory.text).toContain('[secret:openai]');

    // Neither value was embedded for storage, stored in any memory (turns, facts) or written to the file.
    const everything = JSON.stringify((await engram.list({ scope: ANA, limit: 100 })).items);
    for (const value of [CARD, OPENAI]) {
      expect(embedded.filter((t) => t.includes(value))).toEqual([]);
      expect(everything).not.toContain(value);
    }
    if (backend === 'sqlite') {
      await engram.close();
      const bytes = databaseBytes(location);
      expect(bytes).toContain('[secret:openai]');
      for (const value of [CARD, OPENAI]) expect(bytes).not.toContain(value);
    }
  });

  it("drops an operation the tenant's policy refuses and counts it in the job's result", async () => {
    const { engram } = await setUp(backend, { actions: { card: 'reject' } });
    await engram.remember(session1, { scope: ANA });
    await engram.idle({ timeoutMs: 20_000 });
    const formed = await facts(engram);
    expect(formed.map((m) => m.key)).toEqual(['user.staging']);
    const jobs = await engram.formationJobs({ scope: ANA, states: ['succeeded'] });
    expect(jobs.items[0]?.result).toMatchObject({ candidates: 2, operations: 1, dropped: 1 });
    expect(JSON.stringify(formed)).not.toContain(CARD);
  });
});

/** The second window's candidates hold values its turns never held; consolidation fails, so the rules embed them. */
const candidateRules = (): ScriptRule[] => [
  extractionRule('extract-1', 'pay the rent by card', [
    { text: 'Ana pays the rent by card', turn: 'pay the rent by card', key: 'user.rent' },
    { text: 'Ana looks after the staging server', turn: 'staging server', key: 'user.staging' },
  ]),
  extractionRule('extract-2', 'new card', [
    { text: `Ana pays the rent with her card ${CARD}`, turn: 'new card', key: 'user.rent' },
    { text: `Ana's staging server key is ${OPENAI}`, turn: 'new key', key: 'user.staging' },
  ]),
  { name: 'consolidate', match: (r) => r.prompt.includes(CONSOLIDATE), reply: { fault: 'server-error' } },
];

describe.each(['sqlite', 'postgres'] as const)('candidates masked before consolidation on %s', (backend) => {
  it('sends no invented value to the consolidation call or an embedding; the fact counts its mask once', async () => {
    const { engram, server, everyInput } = await setUp(backend, {}, candidateRules());
    await engram.remember(session1, { scope: ANA });
    await engram.idle({ timeoutMs: 20_000 });
    await engram.remember(
      turns('s2', ['These days I pay the rent with my new card.', 'I got a new key for the staging server.']),
      { scope: ANA },
    );
    await engram.idle({ timeoutMs: 20_000 });

    const consolidation = server.calls.filter((c) => c.request.prompt.includes(CONSOLIDATE));
    expect(consolidation.length).toBeGreaterThan(0);
    const sent = JSON.stringify(consolidation.map((c) => c.request));
    expect(sent).toContain(`[card Visa •••• ${CARD.slice(-4)}]`);
    expect(sent).toContain('[secret:openai]');
    for (const value of [CARD, OPENAI]) {
      expect(sent).not.toContain(value);
      expect(everyInput.filter((t) => t.includes(value))).toEqual([]);
    }
    // The rule consolidator compared the masked candidates.
    expect(everyInput).toContain(`Ana pays the rent with her card [card Visa •••• ${CARD.slice(-4)}]`);

    const rent = (await facts(engram)).find((m) => m.text.includes('with her card')) as Memory;
    expect(rent.text).toBe(`Ana pays the rent with her card [card Visa •••• ${CARD.slice(-4)}]`);
    expect(rent.metadata.engramSafety).toEqual({
      masked: { card: 1 },
      items: [{ field: 'text', category: 'card', kind: 'Visa' }],
      flags: [],
    });
    const everything = JSON.stringify((await engram.list({ scope: ANA, limit: 100 })).items);
    for (const value of [CARD, OPENAI]) expect(everything).not.toContain(value);
  });
});
