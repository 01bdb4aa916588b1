/**
 * Candidate facts are masked between extraction and consolidation (src/formation/run-job.ts,
 * `FormationGuard.candidates`): what the extraction LLM invents — here a scripted
 * OpenAI-compatible server on 127.0.0.1 answers with a card number and an API key the transcript
 * never held — never reaches the consolidation request or an embedding input unmasked (the
 * consolidation call fails, so the rule consolidator's own embeddings run too). The stored fact's
 * report counts the mask it was written with, once. The stores are real: a SQLite file and a
 * throwaway PostgreSQL server.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';

import type { EmbedOptions } from '../../src/embed/embedder.js';
import { Engram } from '../../src/engram.js';
import type { Memory } from '../../src/model/memory.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { chatFor } from '../formation/support/chat-for.js';
import {
  CONSOLIDATE,
  extractionRule,
  FormationBackends,
  openStoreAt,
  testFormation,
  type BackendName,
} from '../formation/support/formation-fixture.js';
import { startScriptedLlm, type ScriptedLlmServer } from '../formation/support/scripted-llm-server.js';
import { body, luhnNumber } from './support/tokens.js';

const OPENAI = `sk-proj-${body(64, 93, 'ABCDEFGHIJabcdefghij0123456789_-')}`;
const CARD = luhnNumber('4', 16, 94);
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
const session2 = turns('s2', ['These days I pay the rent with my new card.', 'I got a new key for the staging server.']);

async function setUp(backend: BackendName) {
  const server = await startScriptedLlm({
    rules: [
      extractionRule('extract-1', 'pay the rent by card', [
        { text: 'Ana pays the rent by card', turn: 'pay the rent by card', key: 'user.rent' },
        { text: 'Ana looks after the staging server', turn: 'staging server', key: 'user.staging' },
      ]),
      // The second window's facts hold values the turns never held.
      extractionRule('extract-2', 'new card', [
        { text: `Ana pays the rent with her card ${CARD}`, turn: 'new card', key: 'user.rent' },
        { text: `Ana's staging server key is ${OPENAI}`, turn: 'new key', key: 'user.staging' },
      ]),
      // Consolidation fails: the rules decide, and embed the candidates to compare them.
      { name: 'consolidate', match: (r) => r.prompt.includes(CONSOLIDATE), reply: { fault: 'server-error' } },
    ],
  });
  const embedded: string[] = [];
  const embedder = new (class extends HashedEmbedder {
    override async embed(texts: string[], _options?: EmbedOptions): Promise<Float32Array[]> {
      // Every input: what is stored, neighbour queries and the rule consolidator's comparisons.
      embedded.push(...texts);
      return super.embed(texts);
    }
  })({ dim: 128 });
  const engram = await Engram.open({
    store: await openStoreAt(await backends.location(backend)),
    embedder,
    env: {},
    formation: testFormation(chatFor('openai', server, { retries: 1, timeoutMs: 2_000 })),
  });
  open.push({ engram, server });
  return { engram, server, embedded };
}

describe.each(['sqlite', 'postgres'] as const)('candidates masked before consolidation on %s', (backend) => {
  it('sends no invented value to the consolidation call or an embedding; the fact counts its mask once', async () => {
    const { engram, server, embedded } = await setUp(backend);
    await engram.remember(session1, { scope: ANA });
    await engram.idle({ timeoutMs: 20_000 });
    await engram.remember(session2, { scope: ANA });
    await engram.idle({ timeoutMs: 20_000 });

    const consolidation = server.calls.filter((c) => c.request.prompt.includes(CONSOLIDATE));
    expect(consolidation.length).toBeGreaterThan(0);
    const sent = JSON.stringify(consolidation.map((c) => c.request));
    expect(sent).toContain(`[card Visa •••• ${CARD.slice(-4)}]`);
    expect(sent).toContain('[secret:openai]');
    for (const value of [CARD, OPENAI]) {
      expect(sent).not.toContain(value);
      expect(embedded.filter((t) => t.includes(value))).toEqual([]);
    }
    // The rule consolidator compared the masked candidates.
    expect(embedded).toContain(`Ana pays the rent with her card [card Visa •••• ${CARD.slice(-4)}]`);

    const facts = (
      await engram.list({ scope: ANA, types: ['UserMemory'], statuses: ['activated'], limit: 50 })
    ).items;
    const rent = facts.find((m) => m.text.includes('with her card')) as Memory;
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
