/**
 * Moving a tenant between backends: SQLite -> PostgreSQL -> SQLite keeps every field, every
 * vector bit and usage, and no other tenant's rows come along.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MemoryRecord, MemoryStore } from '../../src/store/memory-store.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { exportTenant, importRecords, type TransferRecord } from '../../src/store/transfer.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { at, makeRecord, randomVector, seededRandom } from './fixtures/records.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_transfer' });
});
afterAll(async () => {
  await cluster?.stop();
});

async function collect(iterable: AsyncIterable<TransferRecord>): Promise<TransferRecord[]> {
  const out: TransferRecord[] = [];
  for await (const r of iterable) out.push(r);
  return out;
}

function fixture(tenant: string): MemoryRecord[] {
  const random = seededRandom(7);
  const records: MemoryRecord[] = [];
  const texts = [
    'I am allergic to peanuts',
    'Ich trinke gern Café au lait',
    'Моя собака любит гулять',
    '我对花生过敏',
    '🙂 emoji and "quotes" \\ back\'slash',
  ];
  for (let i = 0; i < 1203; i++) {
    const withVec = i % 5 !== 0;
    // One model per (tenant, user) partition, as a restore requires: user u2 is on another model.
    const model = i % 3 === 2 ? 'other-model' : 'test-model';
    const dim = model === 'other-model' ? 8 : 16;
    const vector = withVec ? randomVector(random, dim) : null;
    records.push(
      makeRecord({
        id: `mem-${String(i).padStart(5, '0')}`,
        text: `${texts[i % texts.length]} #${i}`,
        type: i % 3 === 0 ? 'UserMemory' : 'LongTermMemory',
        key: i % 4 === 0 ? `key-${i % 10}` : null,
        tags: i % 2 === 0 ? ['a', `t${i % 3}`] : [],
        level: i % 6 === 0 ? 'fact' : null,
        summary: i % 8 === 0 ? `summary ${i}` : null,
        background: i % 9 === 0 ? 'background' : null,
        sources: i % 10 === 0 ? [{ type: 'chat', id: `D1:${i}`, role: 'user', content: 'hi' }] : [],
        scope: {
          tenant,
          user: `u${i % 3}`,
          ...(i % 4 === 0 ? { agent: 'ag', session: `s${i % 2}` } : {}),
          ...(i % 5 === 1 ? { collection: 'c' } : {}),
        },
        metadata: i % 2 === 0 ? { n: i, nested: { ok: true, list: [1, 'two', null] }, ключ: 'значение' } : {},
        statedAt: i % 3 === 1 ? at(i * 3) : null,
        createdAt: at(i),
        updatedAt: at(i + 5),
        status: i % 11 === 0 ? 'archived' : i % 13 === 0 ? 'deleted' : 'activated',
        embedding: vector ? { model, dim } : null,
        vector,
      }),
    );
  }
  return records;
}

const byId = (a: TransferRecord, b: TransferRecord): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

it('SQLite -> PostgreSQL -> SQLite round-trips a whole tenant without loss', async () => {
  const tenant = 'acme';
  const source = createSqliteStore({ path: ':memory:' });
  await source.migrate();
  const records = fixture(tenant);
  await source.insert(records);
  await source.insert([makeRecord({ id: 'other-tenant-row', scope: { tenant: 'globex' } })]);
  // Usage: counts and last-used times must survive too.
  await source.recordUsage(tenant, ['mem-00001', 'mem-00002'], at(5000));
  await source.recordUsage(tenant, ['mem-00001'], at(6000));

  const original = await collect(exportTenant(source, tenant, { pageSize: 100 }));
  expect(original).toHaveLength(records.length);
  expect(original.find((r) => r.id === 'mem-00001')?.usage).toEqual({ count: 2, lastUsedAt: at(6000) });

  const pg: MemoryStore = await createPostgresStore({ connectionString: cluster.url, schema: 'transfer' });
  const report = await importRecords(pg, exportTenant(source, tenant), { batchSize: 250 });
  expect(report.imported).toBe(records.length);
  const viaPg = await collect(exportTenant(pg, tenant));

  const back = createSqliteStore({ path: ':memory:' });
  await back.migrate();
  // Through JSON text, as `engram export | engram import` would.
  const lines = viaPg.map((r) => JSON.stringify(r));
  await importRecords(
    back,
    lines.map((l) => JSON.parse(l) as TransferRecord),
    { batchSize: 400 },
  );
  const final = await collect(exportTenant(back, tenant));

  expect([...viaPg].sort(byId)).toEqual([...original].sort(byId));
  expect([...final].sort(byId)).toEqual([...original].sort(byId));
  // Nothing of the other tenant travelled.
  expect(await pg.count({ scope: { tenant: 'globex' } })).toBe(0);
  // Vectors are bit-exact, not just close.
  const v1 = await source.getVectors(tenant, ['mem-00003']);
  const v2 = await back.getVectors(tenant, ['mem-00003']);
  expect(Buffer.from(v2.get('mem-00003')!.buffer).equals(Buffer.from(v1.get('mem-00003')!.buffer))).toBe(true);
  // And the stores answer the same (the recall inputs): same dense ranking, same cosines.
  const query = randomVector(seededRandom(99), 16);
  const filter = { scope: { tenant } };
  const d1 = await source.denseSearch({ filter, vector: query, model: 'test-model', limit: 20 });
  const d2 = await pg.denseSearch({ filter, vector: query, model: 'test-model', limit: 20 });
  const d3 = await back.denseSearch({ filter, vector: query, model: 'test-model', limit: 20 });
  // Same ids in the same order; cosines equal within float32 precision (SQLite's native scan
  // accumulates in float32, PostgreSQL's app-side scoring in float64).
  for (const d of [d2, d3]) {
    expect(d.map((c) => c.id)).toEqual(d1.map((c) => c.id));
    d.forEach((c, i) => expect(Math.abs(c.cosine - d1[i]!.cosine)).toBeLessThan(1e-6));
  }

  await source.close();
  await pg.close();
  await back.close();
});

it('importing into a tenant that already has the ids fails with CONFLICT', async () => {
  const pg = await createPostgresStore({ connectionString: cluster.url, schema: 'transfer_conflict' });
  const rec = makeRecord({ id: 'dup', scope: { tenant: 'x' } });
  await pg.insert([rec]);
  const exported = await collect(exportTenant(pg, 'x'));
  await expect(importRecords(pg, exported)).rejects.toMatchObject({ code: 'CONFLICT' });
  // --tenant rewrites the tenant, so the same export can be loaded next to the original.
  await importRecords(pg, exported, { tenant: 'y' });
  expect((await pg.get('y', ['dup']))[0]?.scope.tenant).toBe('y');
  await pg.close();
});
