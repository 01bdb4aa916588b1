import { expect } from 'vitest';
import type { MemoryStore } from '../../../src/store/memory-store.js';
import { exportTenant, importRecords, type TransferLine, type TransferRecord } from '../../../src/store/transfer.js';
import { randomVector, seededRandom, withVector } from '../fixtures/records.js';
import { expectCode } from '../../support/expect-code.js';
import { formationOf, type CaseContext } from './case-context.js';

const DIM = 8;

async function collect<T>(lines: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** base64 of little-endian float32 values, as an export writes a vector. */
function base64(values: ArrayLike<number>): string {
  const bytes = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) bytes.writeFloatLE(values[i] as number, i * 4);
  return bytes.toString('base64');
}

const vectorOf = (n: number, seed: number) => Array.from(randomVector(seededRandom(seed), n));

/** Ways to spoil the last record of an otherwise good export, each with the code a restore answers. */
const SPOILED: Array<[string, string, (line: TransferRecord) => unknown]> = [
  [
    'one value short of the declared dimension',
    'DIMENSION_MISMATCH',
    (l) => ({ ...l, vector: base64(vectorOf(DIM - 1, 1)) }),
  ],
  [
    'one value over the declared dimension',
    'DIMENSION_MISMATCH',
    (l) => ({ ...l, vector: base64(vectorOf(DIM + 1, 1)) }),
  ],
  [
    'a dimension (declared and given) the partition does not have',
    'MODEL_MISMATCH',
    (l) => ({ ...l, embedding: { model: 'test-model', dim: DIM - 1 }, vector: base64(vectorOf(DIM - 1, 2)) }),
  ],
  [
    'one more dimension, declared and given',
    'MODEL_MISMATCH',
    (l) => ({ ...l, embedding: { model: 'test-model', dim: DIM + 1 }, vector: base64(vectorOf(DIM + 1, 2)) }),
  ],
  [
    'another model in the same partition',
    'MODEL_MISMATCH',
    (l) => ({ ...l, embedding: { model: 'other-model', dim: DIM } }),
  ],
  ['all zeros', 'INVALID_VECTOR', (l) => ({ ...l, vector: base64(new Array<number>(DIM).fill(0)) })],
  ['a NaN', 'INVALID_VECTOR', (l) => ({ ...l, vector: base64([...vectorOf(DIM - 1, 3), Number.NaN]) })],
  [
    'an infinity',
    'INVALID_VECTOR',
    (l) => ({ ...l, vector: base64([Number.POSITIVE_INFINITY, ...vectorOf(DIM - 1, 3)]) }),
  ],
  [
    'bytes that are not float32 values',
    'INVALID_VECTOR',
    (l) => ({ ...l, vector: Buffer.from('abcdefg').toString('base64') }),
  ],
  ['a vector that is not a string', 'INVALID_VECTOR', (l) => ({ ...l, vector: vectorOf(DIM, 4) })],
  [
    'a dimension that is not a number',
    'INVALID_VECTOR',
    (l) => ({ ...l, embedding: { model: 'test-model', dim: String(DIM) } }),
  ],
  ['a model that is not named', 'INVALID_VECTOR', (l) => ({ ...l, embedding: { model: '', dim: DIM } })],
  ['an id given twice', 'CONFLICT', (l) => ({ ...l, id: 'restore-1' })],
  ['no text', 'INVALID_TEXT', (l) => ({ ...l, text: undefined })],
];

/**
 * A restore checks the whole file before it writes anything: a bad record at the end of a file
 * larger than a batch restores nothing (no row, no history), and the target scope keeps working
 * with its one model. Restoring into a partition holding another model is refused the same way.
 */
export function restoreCheckCases({ test, store: current, tenant }: CaseContext): void {
  /** A good export of `n` memories of one user (test-model, DIM), read through JSON. */
  async function goodExport(store: MemoryStore, n: number): Promise<TransferRecord[]> {
    const A = tenant('export');
    const random = seededRandom(5);
    const records = Array.from({ length: n }, (_, i) =>
      withVector(randomVector(random, DIM), 'test-model', { id: `restore-${i}`, scope: { tenant: A, user: 'u' } }),
    );
    await store.insert(records);
    const lines = await collect(exportTenant(store, A));
    return lines.map((l) => JSON.parse(JSON.stringify(l)) as TransferRecord);
  }

  /** A target tenant already holding one memory of the user, under test-model. */
  async function target(store: MemoryStore): Promise<string> {
    const B = tenant('target');
    await store.insert([
      withVector(randomVector(seededRandom(9), DIM), 'test-model', { id: 'resident', scope: { tenant: B, user: 'u' } }),
    ]);
    return B;
  }

  async function expectUntouched(store: MemoryStore, B: string, ids: string[]): Promise<void> {
    expect(await store.count({ scope: { tenant: B } })).toBe(1);
    expect(await store.get(B, ids)).toEqual([]);
    expect(await formationOf(store).history.forMemories(B, ids)).toEqual([]);
    const stats = await store.stats({ scope: { tenant: B, user: 'u' } });
    expect(stats.models).toEqual([{ model: 'test-model', dim: DIM, count: 1 }]);
    // The scope still takes writes and answers searches under its model.
    await store.insert([
      withVector(randomVector(seededRandom(11), DIM), 'test-model', { scope: { tenant: B, user: 'u' } }),
    ]);
    const hits = await store.denseSearch({
      filter: { scope: { tenant: B, user: 'u' } },
      vector: randomVector(seededRandom(12), DIM),
      model: 'test-model',
      limit: 5,
    });
    expect(hits).toHaveLength(2);
  }

  for (const [name, code, spoil] of SPOILED) {
    test(`restore refuses a whole file whose last vector has ${name} (${code}), writing nothing`, async () => {
      const store = current();
      const lines = await goodExport(store, 7);
      const B = await target(store);
      const bad = [...lines.slice(0, -1), spoil(lines[lines.length - 1] as TransferRecord) as TransferLine];
      const error = await expectCode(importRecords(store, bad, { tenant: B, batchSize: 3 }), code);
      expect(error.details['line']).toBe(lines.length);
      await expectUntouched(
        store,
        B,
        lines.map((l) => l.id),
      );
    });
  }

  test('restore refuses a file read once (a generator) the same way, and one whose id is already stored', async () => {
    const store = current();
    const lines = await goodExport(store, 5);
    const B = await target(store);
    const spoiled = { ...lines[4]!, vector: base64(new Array<number>(DIM).fill(0)) } as TransferLine;
    async function* once(): AsyncIterable<TransferLine> {
      yield* lines.slice(0, 4);
      yield spoiled;
    }
    await expectCode(importRecords(store, once(), { tenant: B, batchSize: 2 }), 'INVALID_VECTOR');
    const taken = [...lines.slice(0, 4), { ...lines[4]!, id: 'resident' }];
    await expectCode(importRecords(store, taken, { tenant: B, batchSize: 2 }), 'CONFLICT');
    const twice = [...lines, { format: 'engram.history/v1', event: lines[0]!.history![0]! } as TransferLine];
    await expectCode(importRecords(store, twice, { tenant: B, batchSize: 2 }), 'CONFLICT');
    await expectUntouched(
      store,
      B,
      lines.map((l) => l.id),
    );
  });

  test('restore refuses a good export into a partition that holds another model, and takes it into its own', async () => {
    const store = current();
    const lines = await goodExport(store, 4);
    const B = tenant('other-model');
    await store.insert([
      withVector(randomVector(seededRandom(9), 4), 'small-model', { scope: { tenant: B, user: 'u' } }),
    ]);
    await expectCode(importRecords(store, lines, { tenant: B }), 'MODEL_MISMATCH');
    expect(await store.count({ scope: { tenant: B } })).toBe(1);
    // A tenant-wide memory is checked against every user of the tenant (the facade's tenant scope).
    const wide = lines.map((l) => ({ ...l, scope: { tenant: l.scope.tenant } }));
    const C = tenant('wide');
    await store.insert([
      withVector(randomVector(seededRandom(9), 4), 'small-model', { scope: { tenant: C, user: 'v' } }),
    ]);
    await expectCode(importRecords(store, wide, { tenant: C }), 'MODEL_MISMATCH');
    // Into a fresh tenant it restores whole, the memories without a vector too.
    const D = tenant('fresh');
    const plain = { ...lines[0]!, id: 'no-vector', vector: null, embedding: null, history: undefined } as TransferLine;
    expect((await importRecords(store, [...lines, plain], { tenant: D })).imported).toBe(5);
    expect((await store.stats({ scope: { tenant: D } })).models).toEqual([{ model: 'test-model', dim: DIM, count: 4 }]);
  });
}
