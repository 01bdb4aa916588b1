/**
 * The write guard where formation writes (src/safety/formation-guard.ts): turns are masked before
 * they become episodes or an extraction prompt, a window's operations before they are embedded
 * and applied. The second block runs through the facade once it has `remember` (branch fpipe):
 * nothing planted in a transcript reaches the store, the embedder or the extraction.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { Engram } from '../../src/engram.js';
import { isEngramError } from '../../src/model/errors.js';
import type { FormationOp, NewMemory } from '../../src/model/formation/operations.js';
import { FormationGuard } from '../../src/safety/formation-guard.js';
import { WriteGuard } from '../../src/safety/write-guard.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { body, luhnNumber } from './support/tokens.js';

const OPENAI = `sk-proj-${body(64, 81, 'ABCDEFGHIJabcdefghij0123456789_-')}`;
const CARD = luhnNumber('4', 16, 82);

function newMemory(id: string, text: string): NewMemory {
  return {
    id,
    text,
    type: 'UserMemory',
    key: null,
    tags: [],
    sources: [{ type: 'chat', id: 'ep1' }],
    metadata: { formation: { extractor: 'rules' } },
    statedAt: '2026-01-01T00:00:00.000Z',
    validFrom: '2026-01-01T00:00:00.000Z',
    validTo: null,
    supersededBy: null,
  };
}

const tenantRejectsCards = new WriteGuard({
  tenantPolicy: (tenant) => (tenant === 'strict' ? { actions: { card: 'reject' } } : undefined),
});
const guard = new FormationGuard(tenantRejectsCards);

describe('FormationGuard.turns', () => {
  it('masks turn text and keeps every other field and the order', async () => {
    const turns = [
      { role: 'user', text: `my key is ${OPENAI}`, speaker: 'ana', session: 's1', messageId: 'a', occurredAt: 't' },
      { role: 'assistant', text: 'noted', speaker: null, session: 's1', messageId: 'b', occurredAt: 't' },
    ];
    const out = await guard.turns(turns, 'acme');
    expect(out[0]).toEqual({ ...turns[0], text: 'my key is [secret:openai]' });
    expect(out[1]).toBe(turns[1]);
    expect(JSON.stringify(out)).not.toContain(OPENAI);
  });

  it("refuses like add when the tenant's policy rejects a category, naming the turn", async () => {
    const error = await guard.turns([{ text: 'hi' }, { text: `card ${CARD}` }], 'strict').catch((e: unknown) => e);
    expect(isEngramError(error, 'SENSITIVE_DATA_REJECTED')).toBe(true);
    expect((error as Error).message).toContain('messages[1].text');
    expect((error as Error).message).not.toContain(CARD);
  });

  it('a call patch can only tighten', async () => {
    const out = await guard.turns([{ text: `key ${OPENAI}` }], 'acme', { actions: { secret: 'keep' } });
    expect(out[0]?.text).toBe('key [secret:openai]');
  });
});

describe('FormationGuard.operations', () => {
  it('masks adds (with the report), updates and attached evidence; leaves supersessions alone', async () => {
    const ops: FormationOp[] = [
      { op: 'add', candidate: 0, sourceTurnIds: ['ep1'], memory: newMemory('m1', `pays with ${CARD}`) },
      {
        op: 'update',
        candidate: 1,
        sourceTurnIds: ['ep1'],
        id: 'm0',
        baseVersion: 1,
        patch: { text: `uses key ${OPENAI}` },
        addSources: [{ type: 'chat', id: 'ep1', content: `key ${OPENAI}` }],
      },
      {
        op: 'attach-evidence',
        candidate: 2,
        sourceTurnIds: ['ep1'],
        id: 'm9',
        addSources: [{ type: 'chat', content: `card ${CARD}` }],
        confirmedAt: 't',
      },
      {
        op: 'supersede',
        candidate: 3,
        sourceTurnIds: ['ep1'],
        id: 'm8',
        baseVersion: 2,
        successorId: 'm1',
        validTo: 't',
      },
    ];
    const { operations, dropped } = await guard.operations(ops, 'acme');
    expect(dropped).toEqual([]);
    const json = JSON.stringify(operations);
    for (const value of [OPENAI, CARD]) expect(json).not.toContain(value);
    const [add, update, evidence, supersede] = operations as [
      Extract<FormationOp, { op: 'add' }>,
      Extract<FormationOp, { op: 'update' }>,
      Extract<FormationOp, { op: 'attach-evidence' }>,
      FormationOp,
    ];
    expect(add.memory.text).toBe(`pays with [card Visa •••• ${CARD.slice(-4)}]`);
    expect(add.memory.metadata).toMatchObject({
      formation: { extractor: 'rules' },
      engramSafety: { masked: { card: 1 } },
    });
    expect(update.patch).toEqual({ text: 'uses key [secret:openai]' });
    expect(update.addSources[0]?.content).toBe('key [secret:openai]');
    expect(evidence.addSources[0]?.content).toBe(`card [card Visa •••• ${CARD.slice(-4)}]`);
    expect(supersede).toBe(ops[3]);
  });

  it("drops what the tenant's policy refuses, and the supersession of a dropped successor", async () => {
    const ops: FormationOp[] = [
      { op: 'add', candidate: 0, sourceTurnIds: [], memory: newMemory('m1', `card ${CARD}`) },
      { op: 'supersede', candidate: 1, sourceTurnIds: [], id: 'm0', baseVersion: 1, successorId: 'm1', validTo: 't' },
      { op: 'add', candidate: 2, sourceTurnIds: [], memory: newMemory('m2', 'likes tea') },
    ];
    const { operations, dropped } = await guard.operations(ops, 'strict');
    expect(operations.map((op) => op.op)).toEqual(['add']);
    expect(dropped).toEqual([
      { op: 'add', id: 'm1', code: 'SENSITIVE_DATA_REJECTED' },
      { op: 'supersede', id: 'm0', code: 'SUCCESSOR_DROPPED' },
    ]);
  });
});

// Runs once the facade has formation's `remember` (branch fpipe wires FormationGuard into it).
const hasRemember = typeof (Engram.prototype as unknown as Record<string, unknown>)['remember'] === 'function';

describe.runIf(hasRemember)('remember through the facade', () => {
  let engram: Engram | undefined;
  afterEach(async () => engram?.close());

  it('stores, embeds and forms only masked turns', async () => {
    const seen: string[] = [];
    const embedder = new (class extends HashedEmbedder {
      override async embed(texts: string[]): Promise<Float32Array[]> {
        seen.push(...texts);
        return super.embed(texts);
      }
    })();
    const store = createSqliteStore({ path: ':memory:' });
    engram = await Engram.open({ store, embedder });
    const remember = (engram as unknown as Record<string, (m: unknown, o: unknown) => Promise<unknown>>)['remember'];
    const scope = { tenant: 'acme', user: 'u1' };
    await remember?.call(engram, [{ role: 'user', content: `My API key is ${OPENAI} and my card is ${CARD}` }], {
      scope,
    });
    const all = await store.list({ scope: { tenant: 'acme' }, statuses: ['activated', 'archived', 'deleted'] });
    expect(all.items.length).toBeGreaterThan(0);
    const stored = JSON.stringify(all.items);
    const history = JSON.stringify(
      await store.formation?.history.forMemories(
        'acme',
        all.items.map((m) => m.id),
      ),
    );
    for (const value of [OPENAI, CARD]) {
      expect(stored).not.toContain(value);
      expect(history).not.toContain(value);
      expect(seen.join('\n')).not.toContain(value);
    }
    expect(stored).toContain('[secret:openai]');
  });
});
