import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engram } from '../src/engram.js';
import type { Embedder } from '../src/embed/embedder.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { bm25Scores } from '../src/text/bm25.js';
import { referenceTokenize } from '../src/text/tokenizer.js';
import { cosine } from '../src/vector/cosine.js';
import { createTableEmbedder } from './support/table-embedder.js';
import { expectCode } from './support/expect-code.js';

let dir: string;
let path: string;
const open = (embedder: Embedder, extra: Partial<Parameters<typeof Engram.open>[0]> = {}) =>
  Engram.open({ store: createSqliteStore({ path }), embedder, env: {}, ...extra });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-facade-'));
  path = join(dir, 'engram.db');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const WORDS = ['rust', 'python', 'garden', 'coffee', 'marathon', 'kyoto', 'piano', 'salmon', 'budget', 'violin', 'tennis', 'lisbon'];

function corpus(n: number, seed = 3): string[] {
  let s = seed;
  const next = () => (s = (s * 48271) % 2147483647);
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 3 + (next() % 5) }, () => WORDS[next() % WORDS.length] as string);
    return `Memory ${i} mentions ${words.join(' and ')}`;
  });
}

describe('Engram facade', () => {
  it('stores and reads back a memory with every field, scoped by tenant', async () => {
    const engram = await open(createTableEmbedder({}));
    const scope = { tenant: 't1', user: 'u1', session: 's1' };
    const added = await engram.add(
      {
        text: 'User is allergic to peanuts',
        type: 'UserMemory',
        key: 'allergy',
        tags: ['health'],
        level: 'fact',
        summary: 'peanut allergy',
        background: 'said at dinner',
        sources: [{ type: 'chat', id: 'm1', role: 'user', content: 'I am allergic to peanuts' }],
        metadata: { confidence: 0.9, nested: { ok: true } },
        statedAt: '2026-05-01T09:12:00Z',
      },
      { scope },
    );
    expect(added.embedding).toEqual({ model: 'table-32', dim: 32 });
    expect(added.statedAt).toBe('2026-05-01T09:12:00.000Z');
    expect(await engram.get(added.id, { scope })).toEqual(added);
    expect(await engram.get(added.id, { scope: { tenant: 't2' } })).toBeNull();
    expect(await engram.delete(added.id, { scope: { tenant: 't2' } })).toBe(false);
    await expectCode(engram.update(added.id, { text: 'hijacked' }, { scope: { tenant: 't2' } }), 'NOT_FOUND');
    const updated = await engram.update(added.id, { tags: ['health', 'food'] }, { scope });
    expect(updated.tags).toEqual(['health', 'food']);
    expect(updated.text).toBe(added.text);
    await engram.close();
  });

  it('rejects bad input with stable codes and stores nothing from a bad batch', async () => {
    const engram = await open(createTableEmbedder({}));
    const scope = { tenant: 't1' };
    await expectCode(engram.add({ text: '' }, { scope }), 'INVALID_TEXT');
    await expectCode(engram.add({ text: '   ' }, { scope }), 'INVALID_TEXT');
    await expectCode(engram.add({ text: 'x'.repeat(40_000) }, { scope }), 'TEXT_TOO_LONG');
    await expectCode(engram.add({ text: 'lone \ud800 surrogate' }, { scope }), 'INVALID_TEXT');
    await expectCode(engram.add({ text: 'ok' }, { scope: { tenant: '' } }), 'INVALID_SCOPE');
    await expectCode(engram.add({ text: 'ok' }, { scope: { tenant: 't', planet: 'x' } as never }), 'INVALID_SCOPE');
    await expectCode(engram.add({ text: 'ok', type: 'Nope' as never }, { scope }), 'INVALID_INPUT');
    await expectCode(engram.add({ text: 'ok', metadata: { n: Number.NaN } }, { scope }), 'INVALID_INPUT');
    await expectCode(engram.addMany([{ text: 'fine' }, { text: 'also', id: 'a' }, { text: 'dup', id: 'a' }], { scope }), 'CONFLICT');
    await expectCode(engram.addMany([{ text: 'fine' }, { text: '' }], { scope }), 'INVALID_TEXT');
    for (const limit of [0, -1, 1.5, Number.NaN, 1e9]) {
      await expectCode(engram.recall('anything', { scope, limit }), 'INVALID_LIMIT');
    }
    await expectCode(engram.recall('', { scope }), 'INVALID_TEXT');
    expect((await engram.list({ scope })).items).toEqual([]);
    await engram.close();
  });

  it('treats full-text syntax in a query as words and rejects bad query vectors', async () => {
    const engram = await open(createTableEmbedder({ dim: 16 }));
    const scope = { tenant: 't' };
    await engram.addMany([{ text: 'The foo bar report is due' }, { text: 'Unrelated note about tea' }], { scope });
    for (const query of ['"foo', 'foo* NEAR(bar)', 'foo AND -bar: ^baz', '(foo OR) NOT "', 'col:foo', '*']) {
      const result = await engram.recall(query, { scope, threshold: -1 });
      expect(result.hits.length).toBeGreaterThan(0);
    }
    const hit = (await engram.recall('foo* NEAR(bar)', { scope, threshold: -1 })).hits[0];
    expect(hit?.memory.text).toBe('The foo bar report is due');
    expect(hit?.explanation.channels).toContain('lexical');
    const nan = new Float32Array(16).fill(Number.NaN);
    await expectCode(engram.recall('', { scope, vector: nan }), 'INVALID_VECTOR');
    await expectCode(engram.recall('', { scope, vector: new Float32Array(8).fill(1) }), 'DIMENSION_MISMATCH');
    await engram.close();
  });

  it('an id already stored fails the whole batch', async () => {
    const engram = await open(createTableEmbedder({}));
    const scope = { tenant: 't1' };
    await engram.add({ text: 'first', id: 'fixed-id' }, { scope });
    await expect(engram.addMany([{ text: 'new one' }, { text: 'again', id: 'fixed-id' }], { scope })).rejects.toThrow();
    expect((await engram.list({ scope })).items.map((m) => m.text)).toEqual(['first']);
    await engram.close();
  });

  it('seed profile reproduces the reference recall exactly (independent oracle)', async () => {
    const embedder = createTableEmbedder({ dim: 32 });
    const engram = await open(embedder);
    const scope = { tenant: 't', user: 'u' };
    const texts = corpus(400);
    await engram.addMany(texts.map((text, i) => ({ text, id: `m${String(i).padStart(4, '0')}` })), { scope });
    const vectors = await embedder.embed(texts);
    for (const query of ['rust and coffee in lisbon', 'piano', 'what about the marathon budget']) {
      const [q] = (await embedder.embed([query])) as [Float32Array];
      const limit = 7;
      // The reference: pool = max(limit, min(rows, max(limit*10, 50))) by cosine.
      const pool = texts
        .map((text, i) => ({ id: `m${String(i).padStart(4, '0')}`, text, cos: cosine(q, vectors[i] as Float32Array) }))
        .sort((a, b) => b.cos - a.cos)
        .slice(0, Math.max(limit, Math.min(texts.length, Math.max(limit * 10, 50))));
      const qTokens = referenceTokenize(query);
      const wLex = qTokens.length <= 2 ? 0.3 : 0.15;
      const bm = bm25Scores(qTokens, pool.map((p) => referenceTokenize(p.text))).normalized;
      const expected = pool
        .map((p, i) => ({ id: p.id, score: (1 - wLex) * p.cos + wLex * (bm[i] as number) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
      const result = await engram.recall(query, { scope, limit, profile: 'seed', threshold: -1 });
      expect(result.hits.map((h) => h.memory.id)).toEqual(expected.map((e) => e.id));
      result.hits.forEach((h, i) => expect(h.score).toBeCloseTo((expected[i] as { score: number }).score, 5));
      expect(result.hits.every((h) => h.explanation.lexicalWeight === wLex)).toBe(true);
      expect(result.poolSize).toBe(pool.length);
    }
    await engram.close();
  });

  it('the lexical channel recalls a word match outside the dense pool; the seed profile cannot', async () => {
    const dim = 8;
    const near = [1, 0, 0, 0, 0, 0, 0, 0];
    const table = new Map<string, number[]>();
    const distractors = Array.from({ length: 80 }, (_, i) => `distractor note number ${i} about weather`);
    // Distractors sit at cosines 0.25–0.41 and fill the dense pool; the word match sits at 0.20, below all of them.
    distractors.forEach((t, i) => {
      const c = 0.25 + 0.002 * i;
      table.set(t, [c, Math.sqrt(1 - c * c), 0, 0, 0, 0, 0, 0]);
    });
    table.set('The ferry to Zanzibar leaves at noon', [0.2, 0, 0, 0, 0, 0, 0, Math.sqrt(1 - 0.04)]);
    table.set('when does the zanzibar ferry leave', near);
    const engram = await open(createTableEmbedder({ dim, table }));
    const scope = { tenant: 't' };
    await engram.addMany([...distractors, 'The ferry to Zanzibar leaves at noon'].map((text) => ({ text })), { scope });
    const seed = await engram.recall('when does the zanzibar ferry leave', { scope, profile: 'seed', threshold: 0 });
    expect(seed.hits.some((h) => h.memory.text.includes('Zanzibar'))).toBe(false);
    const ours = await engram.recall('when does the zanzibar ferry leave', { scope, threshold: 0 });
    const hit = ours.hits.find((h) => h.memory.text.includes('Zanzibar'));
    expect(hit).toBeDefined();
    expect(hit?.explanation.channels).toEqual(['lexical']);
    expect(hit?.explanation.bm25).toBe(1);
    expect(hit?.explanation.cosine).toBeCloseTo(0.2, 5);
    expect(hit?.explanation.denseRank).toBeUndefined();
    expect(ours.hits[0]).toBe(hit);
    await engram.close();
  });

  it("never ranks one tenant's memory with another's tokens, even with the same id and update time", async () => {
    const fixed = new Date('2026-06-01T00:00:00.000Z');
    const engram = await open(createTableEmbedder({ dim: 8 }), { clock: () => fixed });
    await engram.add({ id: 'same', text: 'kiwi mango papaya' }, { scope: { tenant: 'a' } });
    await engram.add({ id: 'same', text: 'quiet harbour at dawn' }, { scope: { tenant: 'b' } });
    await engram.add({ id: 'other', text: 'kiwi orchard' }, { scope: { tenant: 'b' } });
    // Tenant a first: its memory's tokens enter the token cache.
    const a = await engram.recall('kiwi mango', { scope: { tenant: 'a' }, threshold: -1 });
    expect(a.hits[0]?.explanation.bm25Raw).toBeGreaterThan(0);
    const b = await engram.recall('kiwi mango', { scope: { tenant: 'b' }, threshold: -1 });
    const same = b.hits.find((h) => h.memory.id === 'same');
    expect(same?.memory.text).toBe('quiet harbour at dawn');
    expect(same?.explanation.bm25Raw).toBe(0);
    expect(b.hits.find((h) => h.memory.id === 'other')?.explanation.bm25Raw).toBeGreaterThan(0);
    await engram.close();
  });

  it('applies the threshold and reports what it cut', async () => {
    const engram = await open(createTableEmbedder({}));
    const scope = { tenant: 't' };
    await engram.addMany(corpus(30).map((text) => ({ text })), { scope });
    const all = await engram.recall('violin tennis', { scope, limit: 10, threshold: -1 });
    const cutAt = (all.hits[4] as { score: number }).score;
    const some = await engram.recall('violin tennis', { scope, limit: 10, threshold: cutAt });
    expect(some.hits.length).toBeGreaterThanOrEqual(5);
    expect(some.hits.every((h) => h.score >= cutAt)).toBe(true);
    expect(some.cut.every((h) => h.score < cutAt)).toBe(true);
    expect(some.hits.length + some.cut.length).toBe(all.hits.length);
    await engram.close();
  });

  it('refuses to mix embedding models in a scope until it is re-embedded', async () => {
    const scope = { tenant: 't', user: 'u' };
    const a = await open(createTableEmbedder({ dim: 16, model: 'model-a' }));
    await a.addMany(corpus(20).map((text) => ({ text })), { scope });
    await a.close();
    const b = await open(createTableEmbedder({ dim: 24, model: 'model-b' }));
    const error = await expectCode(b.recall('rust', { scope }), 'MODEL_MISMATCH');
    expect(error.message).toContain('model-a');
    await expectCode(b.add({ text: 'new' }, { scope }), 'MODEL_MISMATCH');
    expect(await b.reembed({ scope })).toBe(20);
    const result = await b.recall('rust', { scope, threshold: -1 });
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits.every((h) => h.memory.embedding?.model === 'model-b')).toBe(true);
    await b.close();
  });

  it('records usage of recalled memories in the background', async () => {
    const engram = await open(createTableEmbedder({}));
    const scope = { tenant: 't' };
    await engram.addMany(corpus(10).map((text) => ({ text })), { scope });
    const result = await engram.recall('rust', { scope, limit: 2, threshold: -1 });
    await engram.close();
    const again = await open(createTableEmbedder({}));
    const first = await again.get((result.hits[0] as { memory: { id: string } }).memory.id, { scope });
    expect(first?.usage.count).toBe(1);
    expect(first?.usage.lastUsedAt).not.toBeNull();
    await again.close();
  });

  it('writes usage within usageFlushMs without close, and refuses a flush time that is not ≥ 0 ms', async () => {
    const engram = await open(createTableEmbedder({}), { usageFlushMs: 10 });
    const scope = { tenant: 't' };
    await engram.addMany(corpus(10).map((text) => ({ text })), { scope });
    const result = await engram.recall('rust', { scope, limit: 1, threshold: -1 });
    const id = (result.hits[0] as { memory: { id: string } }).memory.id;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await engram.get(id, { scope }))?.usage.count).toBe(1);
    await engram.close();
    for (const usageFlushMs of [-1, Number.NaN, '5' as unknown as number]) {
      await expect(open(createTableEmbedder({}), { usageFlushMs })).rejects.toMatchObject({ code: 'CONFIG_ERROR' });
    }
  });
});
