import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPILING_RECALLS } from '../../src/recall/warm-up.js';
import { Engram } from '../../src/engram.js';
import type { LexicalQuery } from '../../src/store/memory-store.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

const BIG = { tenant: 't', user: 'big' };
const SMALL = { tenant: 't', user: 'small' };

describe('Engram.warm: recalls over the scopes served before a restart', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-warm-recall-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the first scope several recalls with its newest texts as queries, the next one, and records no usage', async () => {
    const path = join(dir, 'engram.db');
    const first = await Engram.open({ store: createSqliteStore({ path }), embedder: new HashedEmbedder() });
    await first.addMany(
      Array.from({ length: 12 }, (_, i) => ({ text: `Note ${i} about the harbour lighthouse keeper` })),
      { scope: BIG },
    );
    await first.add({ text: 'The newest note mentions quinces and marmalade' }, { scope: BIG });
    await first.addMany([{ text: 'Small scope: the garden shed key' }], { scope: SMALL });
    // Served before the restart: the store remembers these partitions when it closes.
    await first.recall('lighthouse', { scope: SMALL });
    await first.recall('lighthouse', { scope: BIG });
    await first.close();

    const store = createSqliteStore({ path });
    const asked: Array<{ user: string | undefined; terms: string[] }> = [];
    const lexicalSearch = store.lexicalSearch.bind(store);
    store.lexicalSearch = (query: LexicalQuery) => {
      asked.push({ user: query.filter.scope.user, terms: query.terms });
      return lexicalSearch(query);
    };
    const engram = await Engram.open({ store, embedder: new HashedEmbedder() });
    const usage = async () =>
      (await engram.list({ scope: { tenant: 't' }, limit: 50 })).items.map((m) => [m.id, m.usage.count]);
    const before = await usage();
    const report = await engram.warm();
    expect(report.partitions.map((p) => p.user)).toEqual(['big', 'small']);
    expect(asked.filter((a) => a.user === 'big')).toHaveLength(COMPILING_RECALLS);
    expect(asked.filter((a) => a.user === 'small')).toHaveLength(1);
    // The queries are the scope's own newest texts, so the lexical channel matches as for a question.
    expect(asked[0]?.terms.join(' ')).toMatch(/quince/);
    await engram.close();
    const reopened = await Engram.open({ store: createSqliteStore({ path }), embedder: new HashedEmbedder() });
    const after = (await reopened.list({ scope: { tenant: 't' }, limit: 50 })).items.map((m) => [m.id, m.usage.count]);
    await reopened.close();
    expect(before.some(([, count]) => count !== 0)).toBe(true);
    expect(after).toEqual(before);
  });
});
